package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Check walks the whole file system and verifies its invariants: every
// inode block decodes (checksums), no block is referenced twice, block
// counts and sizes agree with the block trees, every inode is reachable
// from the root (or an open orphan), link counts equal the entries naming
// each inode, directories' ".." is right; then the volume's own Check with
// every block vlfs references. It returns all problems joined, each
// wrapping ErrCorrupt.
func (fs *FS) Check() error {
	fs.commitMu.Lock()
	defer fs.commitMu.Unlock()
	fs.lock()
	defer fs.unlock()
	if fs.closed {
		return fmt.Errorf("check: file system closed: %w", ErrInvalid)
	}
	c := &checker{fs: fs, owner: map[uint64]string{}, refs: map[Ino]uint32{}, subdirs: map[Ino]uint32{},
		children: map[Ino][]childRef{}, types: map[Ino]uint32{}, isDir: map[Ino]bool{}, nlink: map[Ino]uint32{}, parent: map[Ino]Ino{}}
	c.run()
	if len(c.errs) > 0 {
		return errors.Join(c.errs...)
	}
	live := make([]vld.Addr, 0, len(c.owner))
	for a := range c.owner {
		live = append(live, a)
	}
	if err := fs.vol.Check(live); err != nil {
		return fmt.Errorf("volume: %w: %w", err, ErrCorrupt)
	}
	return nil
}

// childRef is one directory entry as Check saw it.
type childRef struct {
	ino Ino
	typ uint32
}

// checker accumulates what Check learns.
type checker struct {
	fs       *FS
	errs     []error
	owner    map[uint64]string // block -> who references it
	refs     map[Ino]uint32    // directory entries naming each inode
	subdirs  map[Ino]uint32    // subdirectories of each directory
	children map[Ino][]childRef
	types    map[Ino]uint32
	isDir    map[Ino]bool
	nlink    map[Ino]uint32
	parent   map[Ino]Ino
}

func (c *checker) fail(format string, args ...any) {
	if len(c.errs) < 100 {
		c.errs = append(c.errs, fmt.Errorf(format+": %w", append(args, ErrCorrupt)...))
	}
}

// claim records that who references block a.
func (c *checker) claim(a uint64, who string) {
	if a == 0 {
		return
	}
	if prev, dup := c.owner[a]; dup {
		c.fail("block %d referenced by %s and by %s", a, prev, who)
		return
	}
	c.owner[a] = who
}

func (c *checker) run() {
	fs := c.fs
	for _, a := range fs.pendingFree {
		c.claim(a, "the free list awaiting a commit")
	}
	for ibn := uint64(0); ibn < fs.imap.numBlocks(); ibn++ {
		c.inodeBlock(ibn)
	}
	for ino := uint64(1); ino < uint64(len(fs.imap.used))*64; ino++ {
		if fs.imap.isUsed(ino) {
			c.inode(Ino(ino))
		}
	}
	c.links()
}

// inodeBlock checks that an inode block decodes and agrees with the
// in-use bits for inodes that are not dirty.
func (c *checker) inodeBlock(ibn uint64) {
	fs := c.fs
	a := fs.imap.addr(ibn)
	if a == 0 {
		return
	}
	c.claim(a, fmt.Sprintf("inode block %d", ibn))
	buf := make([]byte, fs.geo.bs)
	if err := fs.vol.ReadBlock(a, buf); err != nil {
		c.fail("inode block %d at %d: %v", ibn, a, err)
		return
	}
	err := ondisk.DecodeInodeBlock(buf, ibn*fs.geo.ipb, func(_ int, n *ondisk.Inode) error {
		in := fs.inodes[Ino(n.Ino)]
		if in != nil && in.dirty {
			return nil
		}
		if in != nil && in.d != *n {
			c.fail("inode %d: clean in memory but differs from its record on disk", n.Ino)
		}
		if n.Ino != 0 && n.Free() == fs.imap.isUsed(n.Ino) {
			c.fail("inode %d: on disk free=%v, in-use bit %v", n.Ino, n.Free(), fs.imap.isUsed(n.Ino))
		}
		return nil
	})
	if err != nil {
		c.fail("inode block %d at %d: %v", ibn, a, err)
	}
}

// inodeLocked returns the current state of ino without caching it.
func (c *checker) load(ino Ino) (*inode, bool) {
	fs := c.fs
	if in := fs.inodes[ino]; in != nil {
		return in, true
	}
	d, err := fs.readInodeLocked(uint64(ino))
	if err != nil {
		c.fail("inode %d: %v", ino, err)
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
		c.fail("inode %d is in use but has mode %#o", ino, in.d.Mode)
		return
	}
	c.nlink[ino] = in.d.Nlink
	c.isDir[ino] = in.isDir()
	c.types[ino] = typeOf(in.d.Mode)
	c.parent[ino] = Ino(in.d.Parent)
	c.claim(in.d.Xattr, fmt.Sprintf("xattrs of inode %d", ino))
	if in.xattrs == nil && in.d.Xattr != 0 {
		if _, err := fs.xattrsLocked(in); err != nil {
			c.fail("inode %d: %v", ino, err)
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
	err := fs.forEachBlockLocked(in, func(isNode bool, lbn, a uint64) error {
		count++
		if isNode {
			c.claim(a, fmt.Sprintf("an indirect block of inode %d", in.ino))
			return nil
		}
		c.claim(a, fmt.Sprintf("block %d of inode %d", lbn, in.ino))
		mapped[lbn] = true
		maxLbn = max(maxLbn, lbn+1)
		return nil
	})
	if err != nil {
		c.fail("inode %d: %v", in.ino, err)
		return
	}
	for lbn := range in.data {
		if !mapped[lbn] {
			count++
		}
		maxLbn = max(maxLbn, lbn+1)
	}
	if in.dir != nil {
		for i, db := range in.dir.blocks {
			if !mapped[uint64(i)] {
				if !db.dirty {
					c.fail("directory %d: block %d neither written nor dirty", in.ino, i)
				}
				count++
			}
		}
	}
	if in.d.Xattr != 0 {
		count++
	}
	if count != in.d.Blocks {
		c.fail("inode %d: %d blocks counted, record says %d", in.ino, count, in.d.Blocks)
	}
	bs := uint64(fs.geo.bs)
	if limit := (in.d.Size + bs - 1) / bs; maxLbn > limit {
		c.fail("inode %d: block %d beyond size %d", in.ino, maxLbn-1, in.d.Size)
	}
	if in.isDir() && (in.d.Size%bs != 0 || uint64(len(mapped)) > in.d.Size/bs) {
		c.fail("directory %d: size %d with %d blocks", in.ino, in.d.Size, len(mapped))
	}
}

// dir records the entries of directory in.
func (c *checker) dir(in *inode, cached bool) {
	fs := c.fs
	ds, err := fs.dirLocked(in)
	if err != nil {
		c.fail("directory %d: %v", in.ino, err)
		return
	}
	if !cached {
		in.dir = nil
	}
	for name, e := range ds.ents {
		if !fs.imap.isUsed(uint64(e.ino)) {
			c.fail("directory %d: %q names free inode %d", in.ino, name, e.ino)
			continue
		}
		c.refs[e.ino]++
		c.children[in.ino] = append(c.children[in.ino], childRef{e.ino, uint32(e.typ) << 12})
		if uint32(e.typ)<<12 == ondisk.ModeDir {
			c.subdirs[in.ino]++
		}
	}
}

// links checks reachability, link counts, entry types and "..".
func (c *checker) links() {
	reached := map[Ino]bool{RootIno: true}
	queue := []Ino{RootIno}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, cr := range c.children[d] {
			ch := cr.ino
			if cr.typ != c.types[ch] {
				c.fail("directory %d: entry for inode %d has type %#o, inode %#o", d, ch, cr.typ, c.types[ch])
			}
			if c.isDir[ch] && c.parent[ch] != d {
				c.fail("directory %d is in %d but its parent is %d", ch, d, c.parent[ch])
			}
			if !reached[ch] {
				reached[ch] = true
				queue = append(queue, ch)
			}
		}
	}
	for ino, nl := range c.nlink {
		want := c.refs[ino]
		if c.isDir[ino] {
			want = 0
			if c.refs[ino] > 1 {
				c.fail("directory %d has %d entries", ino, c.refs[ino])
			}
			if c.refs[ino] == 1 || ino == RootIno {
				want = 2 + c.subdirs[ino]
			}
		}
		switch {
		case nl != want:
			c.fail("inode %d: link count %d, want %d", ino, nl, want)
		case nl == 0 && !c.fs.orphans[ino]:
			c.fail("inode %d: no link and not held open", ino)
		case nl > 0 && !reached[ino]:
			c.fail("inode %d is not reachable from the root", ino)
		}
	}
	if c.parent[RootIno] != RootIno {
		c.fail("root's parent is %d", c.parent[RootIno])
	}
}
