package vlfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// fixable reports whether Repair knows a safe fix for every finding; if
// not it changes nothing.
func (c *checker) fixable() bool {
	for _, f := range c.errs {
		switch f.Kind {
		case FindBadEntry:
			if c.isDir[f.Ino] && c.refs[f.Ino] > 1 {
				return false // a directory named twice: which name is right?
			}
		case FindParent, FindLinkCount, FindUnreachable, FindUnlinked, FindLeakedBlock, FindBlockCount:
		case FindDataChecksum:
			// Not fixed (no second copy) but no reason to leave the rest
			// unrepaired: it stays among what is left, with why.
		case FindSize:
			if c.isDir[f.Ino] {
				return false // a directory's size and blocks disagree
			}
		default:
			return false
		}
	}
	return true
}

// repair salvages what the mount could not read (repair_salvage.go),
// runs the fixes in order, then corrects link counts from a second check
// (the earlier fixes change what names each inode). It reports whether
// the result is to be committed: false when there was nothing to do or
// something it cannot fix (then the image must stay as it was).
func (fs *FS) repair(res *RepairResult) (bool, error) {
	fs.commitMu.Lock()
	defer fs.commitMu.Unlock()
	fs.lock()
	defer fs.unlock()
	r := &repairer{fs: fs, res: res}
	salvaged := false
	if lost, mended := fs.vol.Redundancy(); lost != "" && mended {
		// The read-write open has written them again already.
		r.found(Finding{Kind: FindRedundancy, Detail: lost})
		r.did("the volume read around damage (%s); what has copies is written whole again", lost)
		salvaged = true
	}
	mends := len(res.Fixed)
	if fs.salv != nil {
		if err := r.salvageTrees(); err != nil {
			return false, fmt.Errorf("repair: %w", err)
		}
		salvaged = len(res.Fixed) > 0
	}
	c := fs.checkLocked(true)
	res.Found = append(res.Found, c.errs...)
	if fs.salv != nil && hasKind(c.errs, FindUnreadable) {
		changed, err := r.salvageUnreadable(c)
		if err != nil {
			return false, fmt.Errorf("repair: %w", err)
		}
		if changed {
			salvaged = true
			c = fs.checkLocked(false) // the salvage changed no file data
		}
	}
	if (!c.anyToFix() && !salvaged) || !c.fixable() {
		// Nothing of the salvage is committed: only the open's mend
		// (already on disk) was done.
		res.Fixed = res.Fixed[:mends]
		return false, nil
	}
	r.c = c
	for _, step := range []func() error{r.fixEntries, r.reclaimUnlinked, r.fixLostFound, r.fixParents, r.fixLeaks} {
		if err := step(); err != nil {
			return false, fmt.Errorf("repair: %w", err)
		}
	}
	// Counts from a check after the steps: they add entries (lost+found,
	// a root made again) and drop blocks.
	r.c = fs.checkLocked(false)
	if err := r.fixSizes(); err != nil {
		return false, fmt.Errorf("repair: %w", err)
	}
	r.fixLinkCounts()
	return true, nil
}

// anyToFix reports whether the check found something a repair changes:
// a data-checksum finding alone is left as it is (no second copy).
func (c *checker) anyToFix() bool {
	for _, f := range c.errs {
		if f.Kind != FindDataChecksum {
			return true
		}
	}
	return false
}

func hasKind(fds []Finding, k FindingKind) bool {
	for _, f := range fds {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// repairer applies fixes with FS.mu held, recording each in res.Fixed.
type repairer struct {
	fs  *FS
	c   *checker
	res *RepairResult
}

func (r *repairer) did(format string, args ...any) {
	r.res.Fixed = append(r.res.Fixed, fmt.Sprintf(format, args...))
}

// sortedInos returns the keys of m in order, so that repairs are
// deterministic.
func sortedInos[V any](m map[Ino]V) []Ino {
	out := make([]Ino, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// fixEntries removes entries naming free inodes and corrects entry types.
func (r *repairer) fixEntries() error {
	for _, f := range r.c.errs {
		if f.Kind != FindBadEntry {
			continue
		}
		d, err := r.fs.dirInodeLocked(f.Ino)
		if err != nil {
			continue // "directory has N entries": the entry owner is the inode itself
		}
		ds, err := r.fs.dirLocked(d)
		if err != nil {
			return err
		}
		for _, name := range sortedNames(ds) {
			if err := r.fixEntry(d, name, ds.ents[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedNames(ds *dirState) []string {
	names := make([]string, 0, len(ds.ents))
	for n := range ds.ents {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (r *repairer) fixEntry(d *inode, name string, e dirEnt) error {
	fs := r.fs
	if !fs.imap.isUsed(uint64(e.ino)) {
		r.did("removed entry %q of directory %d (%s): it named free inode %d", name, d.ino, r.describe(d), e.ino)
		fs.changedLocked(d)
		return fs.dirRemoveLocked(d, name)
	}
	want, ok := r.c.types[e.ino]
	if ok && uint32(e.typ)<<12 != want {
		r.did("entry %q of directory %d: type %#o corrected to %#o", name, d.ino, uint32(e.typ)<<12, want)
		fs.changedLocked(d)
		return fs.dirSetLocked(d, name, e.ino, want)
	}
	return nil
}

// reclaimUnlinked frees inodes with no link that no entry names and no
// handle holds: files unlinked while open when the system stopped.
// Directories among them keep their content: they go to lost+found.
func (r *repairer) reclaimUnlinked() error {
	for _, f := range r.c.errs {
		if f.Kind != FindUnlinked || (r.c.isDir[f.Ino] && len(r.c.children[f.Ino]) > 0) {
			continue
		}
		if err := r.fs.reclaimLocked(f.Ino); err != nil {
			return err
		}
		r.did("reclaimed inode %d: no link, not open", f.Ino)
	}
	return nil
}

// fixLostFound links into /lost+found every unreachable inode that no
// directory names (the top of each unreachable tree), and non-empty
// unlinked directories; what they contain becomes reachable with them.
func (r *repairer) fixLostFound() error {
	var tops []Ino
	for _, f := range r.c.errs {
		unlinkedDir := f.Kind == FindUnlinked && r.c.isDir[f.Ino] && len(r.c.children[f.Ino]) > 0
		if (f.Kind == FindUnreachable && r.c.refs[f.Ino] == 0) || unlinkedDir {
			tops = append(tops, f.Ino)
		}
	}
	if len(tops) == 0 {
		return nil
	}
	slices.Sort(tops)
	var lf *inode
	for _, ino := range tops {
		home, err := r.home(ino)
		if err != nil {
			return err
		}
		if home == nil {
			if lf == nil {
				if lf, err = r.lostFound(); err != nil {
					return err
				}
			}
			home = lf
		}
		if err := r.adopt(home, ino); err != nil {
			return err
		}
	}
	return nil
}

// home is where an unreachable directory goes back to: the directory its
// ".." names, if that one lost entries to damage and is itself reachable
// (the name is lost with the entry: it comes back as "#ino"). nil: to
// lost+found.
func (r *repairer) home(ino Ino) (*inode, error) {
	s := r.fs.salv
	p := r.c.parent[ino]
	if s == nil || !r.c.isDir[ino] || !s.rebuilt[p] || !r.c.reached[p] || !r.c.isDir[p] {
		return nil, nil
	}
	return r.fs.dirInodeLocked(p)
}

// lostFound returns /lost+found, creating it if missing.
func (r *repairer) lostFound() (*inode, error) {
	fs := r.fs
	root, err := fs.dirInodeLocked(RootIno)
	if err != nil {
		return nil, err
	}
	ds, err := fs.dirLocked(root)
	if err != nil {
		return nil, err
	}
	if e, ok := ds.ents[LostFound]; ok {
		return fs.dirInodeLocked(e.ino)
	}
	if _, err := fs.createLocked(newEntry{dir: RootIno, name: LostFound, mode: ondisk.ModeDir | 0o700}); err != nil {
		return nil, fmt.Errorf("creating /%s: %w", LostFound, err)
	}
	delete(fs.lookups, ds.ents[LostFound].ino)
	r.did("created /%s", LostFound)
	return fs.dirInodeLocked(ds.ents[LostFound].ino)
}

// adopt names inode ino "#ino" in directory lf (lost+found, or the
// directory that lost its entry).
func (r *repairer) adopt(lf *inode, ino Ino) error {
	fs := r.fs
	in, err := fs.getLocked(ino)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("#%d", ino)
	if err := fs.dirAddLocked(lf, name, ino, in.d.Mode); err != nil {
		return err
	}
	fs.changedLocked(lf)
	if in.isDir() {
		in.d.Parent = uint64(lf.ino)
		fs.touchLocked(in)
	}
	where := "/" + LostFound
	if p, ok := r.dirPath(lf.ino); ok {
		where = p
	}
	r.did("linked inode %d as %s", ino, strings.TrimSuffix(where, "/")+"/"+name)
	return nil
}

// fixParents points each directory's ".." at the directory naming it.
func (r *repairer) fixParents() error {
	for d, kids := range r.c.children {
		for _, cr := range kids {
			if !r.c.isDir[cr.ino] || r.c.refs[cr.ino] != 1 || r.c.parent[cr.ino] == d {
				continue
			}
			in, err := r.fs.getLocked(cr.ino)
			if err != nil {
				return err
			}
			r.did("directory %d: parent %d corrected to %d", cr.ino, in.d.Parent, d)
			in.d.Parent = uint64(d)
			r.fs.touchLocked(in)
		}
	}
	return nil
}

// fixSizes corrects block counts and grows files to cover their blocks
// (never shrinks: that would drop data).
func (r *repairer) fixSizes() error {
	bs := uint64(r.fs.geo.bs)
	for _, ino := range sortedInos(r.c.counted) {
		if !r.fs.imap.isUsed(uint64(ino)) {
			continue // reclaimed by an earlier step
		}
		in, err := r.fs.getLocked(ino)
		if err != nil {
			return err
		}
		if n := r.c.counted[ino]; in.d.Blocks != n {
			r.did("inode %d: block count %d corrected to %d", ino, in.d.Blocks, n)
			in.d.Blocks = n
			r.fs.touchLocked(in)
		}
		if end := r.c.maxLbn[ino] * bs; !in.isDir() && in.d.Size < end-bs+1 && end > 0 {
			r.did("inode %d: size %d grown to %d to cover its blocks", ino, in.d.Size, end)
			in.d.Size = end
			r.fs.touchLocked(in)
		}
	}
	return nil
}

// fixLeaks frees inode blocks that hold no inode in use.
func (r *repairer) fixLeaks() error {
	fs := r.fs
	for ibn := uint64(0); ibn < fs.imap.numBlocks(); ibn++ {
		a := fs.imap.addr(ibn)
		if a == 0 || fs.imap.blockUsed(ibn) || r.c.anyDirty(ibn) {
			continue
		}
		fs.imap.setAddr(ibn, 0, 0)
		delete(fs.iblocks, ibn)
		fs.freeBlockLocked(a)
		r.did("freed block %d: inode block %d held no inode in use", a, ibn)
	}
	for n, a := range fs.imap.nodes {
		if _, named := r.c.nodeOf[uint64(n)]; a == 0 || named {
			continue
		}
		fs.imap.freeNode(uint64(n))
		fs.freeBlockLocked(a)
		fs.markDirtySinceLocked()
		r.did("freed block %d: node %d was named by no tree", a, n)
	}
	return nil
}

// fixLinkCounts sets each link count to the entries naming the inode.
func (r *repairer) fixLinkCounts() {
	for _, f := range r.c.errs {
		if f.Kind != FindLinkCount {
			continue
		}
		in, err := r.fs.getLocked(f.Ino)
		if err != nil {
			continue
		}
		want := r.c.wantLinks(f.Ino)
		r.did("inode %d: link count %d corrected to %d", f.Ino, in.d.Nlink, want)
		in.d.Nlink = want
		r.fs.touchLocked(in)
	}
}
