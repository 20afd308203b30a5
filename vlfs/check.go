package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// maxFindings bounds what one check collects: a badly damaged image must
// not make fsck use unbounded memory.
const maxFindings = 1000

// Check walks the whole file system and verifies its invariants: every
// inode block decodes (checksums), no block is referenced twice, block
// counts and sizes agree with the block trees, every inode is reachable
// from the root (or an open orphan), link counts equal the entries naming
// each inode, directories' ".." is right; then the volume's own Check with
// every block vlfs references. It returns every problem as a Finding
// (each wrapping ErrCorrupt), joined.
func (fs *FS) Check() error {
	fds, err := fs.Findings()
	if err != nil {
		return err
	}
	if len(fds) == 0 {
		return nil
	}
	errs := make([]error, len(fds))
	for i, f := range fds {
		errs[i] = f
	}
	return errors.Join(errs...)
}

// Findings is Check returning the problems as values; the error is for a
// file system that cannot be checked at all (closed).
func (fs *FS) Findings() ([]Finding, error) {
	fs.commitMu.Lock()
	defer fs.commitMu.Unlock()
	fs.lock()
	defer fs.unlock()
	if fs.closed {
		return nil, fmt.Errorf("check: file system closed: %w", ErrInvalid)
	}
	c := fs.checkLocked(true)
	return c.errs, nil
}

// checkLocked runs the whole check with FS.commitMu and FS.mu held and
// returns the checker (repair reads what it learned). scrub reads every
// data block too (version 4, check_scrub.go): a repair's re-checks after
// its own changes, which touch no file data, leave it out.
func (fs *FS) checkLocked(scrub bool) *checker {
	c := newChecker(fs)
	c.scrub = scrub
	if lost, mended := fs.vol.Redundancy(); lost != "" && !mended {
		c.fail(FindRedundancy, 0, 0, "%s (a read-write mount or fsck --repair writes it again)", lost)
	}
	c.run()
	if len(c.errs) > 0 {
		return c // the set of referenced blocks may be incomplete
	}
	if r := fs.reservationsLocked(); c.reservations != r {
		c.fail(FindVolume, 0, 0, "%d reservations buffered, the counters say %d", c.reservations, r)
	}
	if c.unwritten != fs.unwritten {
		c.fail(FindVolume, 0, 0, "%d unwritten pointers in the trees, the file system keeps space for %d", c.unwritten, fs.unwritten)
	}
	live := make([]vld.Addr, 0, len(c.owner))
	for a := range c.owner {
		live = append(live, a)
	}
	if err := fs.vol.Check(live); err != nil {
		c.fail(FindVolume, 0, 0, "%v", err)
	}
	return c
}

// childRef is one directory entry as Check saw it.
type childRef struct {
	name string
	ino  Ino
	typ  uint32
}

// checker accumulates what Check learns.
type checker struct {
	fs       *FS
	errs     []Finding
	owner    map[uint64]string // block -> who references it
	refs     map[Ino]uint32    // directory entries naming each inode
	subdirs  map[Ino]uint32    // subdirectories of each directory
	children map[Ino][]childRef
	types    map[Ino]uint32
	isDir    map[Ino]bool
	nlink    map[Ino]uint32
	parent   map[Ino]Ino
	reached  map[Ino]bool
	counted  map[Ino]uint64 // blocks found in each inode's tree
	maxLbn   map[Ino]uint64 // one past each inode's last block
	nodeOf   map[uint64]Ino // node number -> the inode whose tree names it
	// scrub: read every data block against its checksum; damaged: those
	// that failed (check_scrub.go)
	scrub   bool
	damaged []scrubbed
	// unwritten counts the unwritten pointers of the trees, reservations
	// the buffered ones (unwritten.go).
	unwritten, reservations int64
}

func newChecker(fs *FS) *checker {
	return &checker{fs: fs, owner: map[uint64]string{}, refs: map[Ino]uint32{}, subdirs: map[Ino]uint32{},
		children: map[Ino][]childRef{}, types: map[Ino]uint32{}, isDir: map[Ino]bool{}, nlink: map[Ino]uint32{},
		parent: map[Ino]Ino{}, reached: map[Ino]bool{}, counted: map[Ino]uint64{}, maxLbn: map[Ino]uint64{},
		nodeOf: map[uint64]Ino{}}
}

func (c *checker) fail(kind FindingKind, ino Ino, addr uint64, format string, args ...any) {
	if len(c.errs) < maxFindings {
		c.errs = append(c.errs, Finding{Kind: kind, Ino: ino, Addr: addr, Detail: fmt.Sprintf(format, args...)})
	}
}

// claim records that who references block a.
func (c *checker) claim(a uint64, ino Ino, who string) {
	if a == 0 {
		return
	}
	if prev, dup := c.owner[a]; dup {
		c.fail(FindSharedBlock, ino, a, "block %d referenced by %s and by %s", a, prev, who)
		return
	}
	c.owner[a] = who
}

func (c *checker) run() {
	fs := c.fs
	for _, a := range fs.pendingFree {
		c.claim(a, 0, "the free list awaiting a commit")
	}
	for ibn := uint64(0); ibn < fs.imap.numBlocks(); ibn++ {
		c.inodeBlock(ibn)
	}
	c.nodeEntries()
	for ino := uint64(1); ino < uint64(len(fs.imap.used))*64; ino++ {
		if fs.imap.isUsed(ino) {
			c.inode(Ino(ino))
		}
	}
	c.nodeLeaks()
	c.links()
	c.caches()
	c.unchanged()
	c.reportDamaged()
}

// caches checks that every loaded inode with changes is pinned, and that
// every loaded inode's set of dirty indirect blocks holds only its loaded
// blocks: a node dropped from the cache but left in
// the set would be written, and never seen by a later change.
func (c *checker) caches() {
	for ino, in := range c.fs.inodes {
		// Only fs.dirty is written out: a loaded inode with changes that
		// is not pinned there would be lost (and could be evicted).
		if in.hasDirtyState() && c.fs.dirty[ino] != in {
			c.fail(FindCache, ino, 0, "inode %d has changes to write but is not pinned as dirty", ino)
		}
		for k, n := range in.dirtyNodes {
			if in.nodes[k] != n {
				c.fail(FindCache, ino, uint64(n.addr), "inode %d: the dirty set holds indirect block %v, which is not the loaded one", ino, k)
			}
		}
	}
}

// unchanged checks that a file system with no change since the last
// commit's snapshot (dirtySince zero) holds nothing a commit would write:
// an fsync that finds it so returns without a commit of its own (Fsync),
// so state changed without marking dirtySince would be acknowledged and
// lost. Blocks awaiting release may remain: a commit frees the old copies
// of what it rewrote, and they wait for the next one, durable or not.
func (c *checker) unchanged() {
	fs := c.fs
	if !fs.dirtySince.IsZero() {
		return
	}
	if fs.rec.sets != 0 || len(fs.rec.land) != 0 {
		c.fail(FindCache, 0, 0, "no change recorded since the last snapshot, yet %d block pointers set and %d blocks logged for a record",
			fs.rec.sets, len(fs.rec.land))
	}
	n := 0
	for _, in := range fs.dirty {
		// Durable through the records (records.go): what they stand for
		// stays dirty until a full commit writes it.
		if fs.rec.seq == 0 || len(in.data) > 0 || !in.recordable() || in.d != in.base {
			n++
		}
	}
	if p := len(fs.imap.dirty); n+p > 0 || fs.dirtyBytes != 0 {
		c.fail(FindCache, 0, 0, "no change recorded since the last snapshot, yet %d dirty inodes, %d dirty inode-map pieces and %d bytes of buffered data",
			n, p, fs.dirtyBytes)
	}
}

// inodeBlock checks that an inode block decodes, agrees with the in-use
// bits for inodes that are not dirty, and holds some inode in use.
func (c *checker) inodeBlock(ibn uint64) {
	fs := c.fs
	a := fs.imap.addr(ibn)
	if a == 0 {
		return
	}
	c.claim(a, 0, fmt.Sprintf("inode block %d", ibn))
	buf := make([]byte, fs.geo.bs)
	err := fs.vol.ReadBlock(a, buf)
	if err == nil && !c.anyDirty(ibn) && !fs.salv.distrusts(ibn) {
		// A block holding a dirty inode is rewritten whole at the next
		// write-out (a repair's cleared inodes are dirty), and one the
		// salvage distrusts is rewritten or dropped: their slots are
		// checked one by one below, the dirty ones skipped.
		err = fs.geo.verifyMeta(buf, fs.imap.sum(ibn))
	}
	if err != nil {
		c.fail(FindUnreadable, 0, a, "inode block %d at %d: %v", ibn, a, err)
		return
	}
	for k := range fs.geo.ipb {
		ino := ibn*fs.geo.ipb + k
		in := fs.inodes[Ino(ino)]
		if in != nil && in.dirty {
			continue // the next write-out replaces the record (a repair's cleared inode among them)
		}
		n, err := ondisk.DecodeInode(buf[k*ondisk.InodeSize:], ino)
		if errors.Is(err, ondisk.ErrZeroed) {
			n, err = ondisk.Inode{Ino: ino}, nil
		}
		if err == nil {
			err = fs.geo.checkLayout(&n)
		}
		if err != nil {
			c.fail(FindUnreadable, 0, a, "inode block %d at %d: %v", ibn, a, err)
			return
		}
		if in != nil && in.d != n {
			c.fail(FindInodeState, Ino(n.Ino), a, "inode %d: clean in memory but differs from its record on disk", n.Ino)
		}
		if n.Ino != 0 && n.Free() == fs.imap.isUsed(n.Ino) {
			c.fail(FindInodeState, Ino(n.Ino), a, "inode %d: on disk free=%v, in-use bit %v", n.Ino, n.Free(), fs.imap.isUsed(n.Ino))
		}
	}
	if !fs.imap.blockUsed(ibn) && !c.anyDirty(ibn) {
		c.fail(FindLeakedBlock, 0, a, "inode block %d at %d holds no inode in use", ibn, a)
	}
}

// anyDirty reports whether an inode of block ibn awaits a write-out (which
// frees a block left empty, so an empty block is not a leak yet).
func (c *checker) anyDirty(ibn uint64) bool {
	ipb := c.fs.geo.ipb
	for ino := ibn * ipb; ino < (ibn+1)*ipb; ino++ {
		if in := c.fs.inodes[Ino(ino)]; in != nil && in.dirty {
			return true
		}
	}
	return false
}

// load returns the current state of ino without caching it.
func (c *checker) load(ino Ino) (*inode, bool) {
	fs := c.fs
	if in := fs.inodes[ino]; in != nil {
		return in, true
	}
	d, err := fs.readInodeLocked(uint64(ino))
	if err != nil {
		c.fail(FindUnreadable, ino, 0, "inode %d: %v", ino, err)
		return nil, false
	}
	return &inode{ino: ino, d: d}, false
}

func (c *checker) inode(ino Ino) {
	fs := c.fs
	in, cached := c.load(ino)
	if in == nil {
		return
	}
	if !cached {
		defer func() { fs.nodes -= len(in.nodes) }()
	}
	if in.d.Free() || !ondisk.ValidType(in.d.Mode) {
		c.fail(FindInodeState, ino, 0, "inode %d is in use but has mode %#o", ino, in.d.Mode)
		return
	}
	c.nlink[ino] = in.d.Nlink
	c.isDir[ino] = in.isDir()
	c.types[ino] = typeOf(in.d.Mode)
	c.parent[ino] = Ino(in.d.Parent)
	c.claim(in.d.Xattr, ino, fmt.Sprintf("xattrs of inode %d", ino))
	if in.xattrs == nil && in.d.Xattr != 0 {
		if _, err := fs.xattrsLocked(in); err != nil {
			c.fail(FindUnreadable, ino, in.d.Xattr, "inode %d: %v", ino, err)
		}
		if !cached {
			in.xattrs = nil
		}
	}
	c.blocks(in)
	if in.isDir() {
		c.dir(in, cached)
	}
}

// blocks checks in's block tree against its size and block count.
func (c *checker) blocks(in *inode) {
	fs := c.fs
	var count, maxLbn uint64
	mapped := map[uint64]bool{}
	scrub := c.newScrubber(in.ino)
	for i := fs.geo.direct; i < ondisk.NumDirect; i++ {
		if in.d.Direct[i] != 0 {
			c.fail(FindInodeState, in.ino, in.d.Direct[i], "inode %d: direct pointer %d set, past the %d of its layout", in.ino, i, fs.geo.direct)
		}
	}
	err := fs.forEachBlockLocked(in, func(isNode bool, lbn, a uint64, sum uint32) error {
		count++
		if isNode {
			if lbn != 0 { // numbered
				c.nodeRef(in.ino, lbn, a)
			} else {
				c.claim(a, in.ino, fmt.Sprintf("an indirect block of inode %d", in.ino))
			}
			return nil
		}
		mapped[lbn] = true
		maxLbn = max(maxLbn, lbn+1)
		if a == ondisk.UnwrittenAddr {
			// A reservation (unwritten.go): no block to claim or read.
			c.unwritten++
			if !fs.unwrittenOK || !in.isReg() {
				c.fail(FindInodeState, in.ino, a, "inode %d: block %d unwritten, which only a regular file of file-system version %d may be", in.ino, lbn, ondisk.FSVersionUnwritten)
			}
			return nil
		}
		c.claim(a, in.ino, fmt.Sprintf("block %d of inode %d", lbn, in.ino))
		scrub.add(lbn, a, sum)
		return nil
	})
	scrub.flush()
	if err != nil {
		c.fail(FindUnreadable, in.ino, 0, "inode %d: %v", in.ino, err)
		return
	}
	for lbn, b := range in.data {
		if b == nil {
			c.reservations++
		}
		if !mapped[lbn] {
			count++
		}
		maxLbn = max(maxLbn, lbn+1)
	}
	if in.dir != nil {
		for i, db := range in.dir.blocks {
			if !mapped[uint64(i)] {
				if !db.dirty {
					c.fail(FindSize, in.ino, 0, "directory %d: block %d neither written nor dirty", in.ino, i)
				}
				count++
			}
		}
	}
	if in.d.Xattr != 0 {
		count++
	}
	c.counted[in.ino], c.maxLbn[in.ino] = count, maxLbn
	if count != in.d.Blocks {
		c.fail(FindBlockCount, in.ino, 0, "inode %d: %d blocks counted, record says %d", in.ino, count, in.d.Blocks)
	}
	bs := uint64(fs.geo.bs)
	if limit := (in.d.Size + bs - 1) / bs; maxLbn > limit {
		c.fail(FindSize, in.ino, 0, "inode %d: block %d beyond size %d", in.ino, maxLbn-1, in.d.Size)
	}
	if in.isDir() && (in.d.Size%bs != 0 || uint64(len(mapped)) > in.d.Size/bs) {
		c.fail(FindSize, in.ino, 0, "directory %d: size %d with %d blocks", in.ino, in.d.Size, len(mapped))
	}
}

// dir records the entries of directory in.
func (c *checker) dir(in *inode, cached bool) {
	fs := c.fs
	ds, err := fs.dirLocked(in)
	if err != nil {
		c.fail(FindUnreadable, in.ino, 0, "directory %d: %v", in.ino, err)
		return
	}
	if !cached {
		in.dir = nil
	}
	for name, e := range ds.ents {
		if !fs.imap.isUsed(uint64(e.ino)) {
			c.fail(FindBadEntry, in.ino, 0, "directory %d: %q names free inode %d", in.ino, name, e.ino)
			continue
		}
		c.refs[e.ino]++
		c.children[in.ino] = append(c.children[in.ino], childRef{name, e.ino, uint32(e.typ) << 12})
		if uint32(e.typ)<<12 == ondisk.ModeDir {
			c.subdirs[in.ino]++
		}
	}
}

// links checks reachability, link counts, entry types and "..".
func (c *checker) links() {
	c.reached = c.reach()
	for d, kids := range c.children {
		for _, cr := range kids {
			ch := cr.ino
			if cr.typ != c.types[ch] {
				c.fail(FindBadEntry, d, 0, "directory %d: entry %q for inode %d has type %#o, inode %#o", d, cr.name, ch, cr.typ, c.types[ch])
			}
			if c.isDir[ch] && c.parent[ch] != d && c.refs[ch] == 1 {
				c.fail(FindParent, ch, 0, "directory %d is in %d but its parent is %d", ch, d, c.parent[ch])
			}
		}
	}
	for ino, nl := range c.nlink {
		c.linkCount(ino, nl)
	}
	if c.parent[RootIno] != RootIno {
		c.fail(FindParent, RootIno, 0, "root's parent is %d", c.parent[RootIno])
	}
}

// reach returns the inodes reachable from the root.
func (c *checker) reach() map[Ino]bool {
	reached := map[Ino]bool{RootIno: true}
	queue := []Ino{RootIno}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, cr := range c.children[d] {
			if !reached[cr.ino] {
				reached[cr.ino] = true
				queue = append(queue, cr.ino)
			}
		}
	}
	return reached
}

// wantLinks is the link count the entries naming ino call for.
func (c *checker) wantLinks(ino Ino) uint32 {
	if !c.isDir[ino] {
		return c.refs[ino]
	}
	if c.refs[ino] == 1 || ino == RootIno {
		return 2 + c.subdirs[ino]
	}
	return 0
}

func (c *checker) linkCount(ino Ino, nl uint32) {
	want := c.wantLinks(ino)
	if c.isDir[ino] && c.refs[ino] > 1 {
		c.fail(FindBadEntry, ino, 0, "directory %d has %d entries", ino, c.refs[ino])
	}
	switch {
	case nl == 0 && want == 0 && !c.fs.orphans[ino]:
		c.fail(FindUnlinked, ino, 0, "inode %d: no link and not held open", ino)
	case nl != want && !(want == 0 && !c.reached[ino]):
		c.fail(FindLinkCount, ino, 0, "inode %d: link count %d, want %d", ino, nl, want)
	}
	if nl > 0 && !c.reached[ino] {
		c.fail(FindUnreachable, ino, 0, "inode %d (link count %d) is not reachable from the root", ino, nl)
	}
}
