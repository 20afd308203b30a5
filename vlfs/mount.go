package vlfs

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// volumeKind is the Kind of a volume holding vlfs.
const volumeKind = "vlfs"

// Mkfs formats dev as an empty vlfs file system (a volume whose AppData is
// the vlfs superblock, and a root directory). It leaves dev open.
func Mkfs(dev device.Device, o MkfsOptions) error {
	bs := o.BlockSize
	if bs == 0 {
		bs = 4096
	}
	if !ondisk.ValidBlockSize(bs) {
		return fmt.Errorf("mkfs: block size %d: %w", bs, ErrInvalid)
	}
	sb := ondisk.Superblock{Version: cmp.Or(o.Version, ondisk.FSVersion), BlockSize: uint32(bs), InodeSize: ondisk.InodeSize,
		RootIno: uint64(RootIno), Created: time.Now().UnixNano()}
	if err := sb.Validate(); err != nil {
		return fmt.Errorf("mkfs: %w: %w", ErrInvalid, err)
	}
	fo := vld.FormatOptions{Model: o.Model, BlockSize: bs, Kind: volumeKind, AppData: sb.Encode(), Progress: o.Progress, Placement: o.Placement}
	if err := vld.Format(dev, fo); err != nil {
		return fmt.Errorf("mkfs: %w", err)
	}
	vol, err := vld.Open(noClose{dev}, vld.Options{Head: o.Head})
	if err != nil {
		return fmt.Errorf("mkfs: %w", err)
	}
	if err := vol.Start(); err != nil {
		vol.Close()
		return fmt.Errorf("mkfs: %w", err)
	}
	fs := newFS(vol, sb, Options{})
	fs.lock()
	err = fs.makeRootLocked()
	fs.unlock()
	if err != nil {
		vol.Close()
		return fmt.Errorf("mkfs: %w", err)
	}
	return fs.closeVolume()
}

// noClose keeps Mkfs from closing the caller's device.
type noClose struct{ device.Device }

func (noClose) Close() error { return nil }

// discard closes the volume without a commit: Repair's way out when it
// must leave the image as it was (vld.Volume.Abandon).
func (fs *FS) discard() error {
	fs.lock()
	fs.closed = true
	fs.unlock()
	return fs.vol.Abandon()
}

// DropCache passes the volume's page-cache advice through (the first
// volume on a new image scans its whole log window).
func (c noClose) DropCache(off, n int64) error {
	device.DropCache(c.Device, off, n)
	return nil
}

func (fs *FS) makeRootLocked() error {
	in, err := fs.newInodeLocked(ondisk.ModeDir|0o755, 0, 0)
	if err != nil {
		return err
	}
	if in.ino != RootIno {
		return fmt.Errorf("root allocated as inode %d: %w", in.ino, ErrCorrupt)
	}
	in.d.Nlink, in.d.Parent = 2, uint64(RootIno)
	in.dir = &dirState{ents: map[string]dirEnt{}}
	return nil
}

func newFS(vol *vld.Volume, sb ondisk.Superblock, o Options) *FS {
	if o.DirtyLimitBytes <= 0 {
		o.DirtyLimitBytes = DefaultDirtyLimit
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	geo := newGeometry(vol.BlockSize(), vol.PayloadSize(), sb.Version >= ondisk.FSVersionSums)
	fs := &FS{vol: vol, opts: o, sb: sb, geo: geo, readOnly: o.ReadOnly,
		imap: newInodeMap(geo), inodes: map[Ino]*inode{}, dirty: map[Ino]*inode{},
		iblocks: map[uint64][]byte{}, flying: map[*byte]uint64{}, lookups: map[Ino]uint64{}, opens: map[Ino]uint32{},
		orphans: map[Ino]bool{}, linkable: map[Ino]bool{}, zero: make([]byte, geo.bs), limits: defaultLimits()}
	fs.imap.nodeMap = sb.Version >= ondisk.FSVersionNodeMap
	fs.unwrittenOK = sb.Version >= ondisk.FSVersionUnwritten
	fs.rec = newRecLog(sb, o, vol)
	if o.salvage {
		fs.salv = &salvage{summed: geo.summed}
	}
	fs.stats.wake = make(chan struct{}, 1)
	if o.TinyCaches {
		fs.limits = cacheLimits{inodes: 1, iblks: 1, nodes: 1, dirty: 1, recent: 1}
	}
	fs.cm.recent.limit = fs.limits.recent
	fs.gc.cond = newCond(&fs.gc.mu)
	fs.landed = newCond(&fs.mu)
	return fs
}

// VolumeOptions are the volume options of a mount that does not choose
// its own (Mount): o's read-only flag and log, the virtual clock, the
// simulated head, read priority with write batches of c* blocks.
func VolumeOptions(o Options) vld.Options {
	return vld.Options{ReadOnly: o.ReadOnly, Logf: o.Logf, Batch: sched.Batch{Mode: sched.BatchAuto}}
}

// Mount is MountWith the default volume options (VolumeOptions).
func Mount(dev device.Device, o Options) (*FS, error) {
	return MountWith(dev, VolumeOptions(o), o)
}

// MountWith opens the volume on dev as vo says (its clock, head model,
// batching, log window: the caller's choice of disk) and the file system
// on it (Open). The FS owns dev from now on, also on failure: Close
// closes it.
func MountWith(dev device.Device, vo vld.Options, o Options) (*FS, error) {
	vol, err := vld.Open(dev, vo)
	if err != nil {
		dev.Close() // ours from the call on, as on every other failure
		return nil, fmt.Errorf("mount: %w", VolumeError(err))
	}
	fs, err := Open(vol, o)
	if err != nil {
		vol.Close()
		return nil, err
	}
	return fs, nil
}

// Open is the file system on vol, which the caller opened (vld.Open): it
// walks the metadata (declaring every referenced block live) and reclaims
// orphans (inodes unlinked while open when the system stopped). The FS
// owns vol from now on: Close closes it; on failure the caller still does.
// The file system is read-only if o or the volume is. An inconsistent
// image gives an error wrapping ErrNeedsRepair.
func Open(vol *vld.Volume, o Options) (*FS, error) {
	o.ReadOnly = o.ReadOnly || vol.ReadOnly()
	fs, err := mountVolume(vol, o)
	if err != nil {
		return nil, fmt.Errorf("mount: %w", err)
	}
	return fs, nil
}

func mountVolume(vol *vld.Volume, o Options) (*FS, error) {
	if vol.Kind() != volumeKind {
		return nil, fmt.Errorf("volume holds %q: %w", vol.Kind(), ErrNotVLFS)
	}
	sb, err := ondisk.DecodeSuperblock(vol.AppData())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrNeedsRepair)
	}
	if int(sb.BlockSize) != vol.BlockSize() {
		return nil, fmt.Errorf("superblock block size %d, volume %d: %w", sb.BlockSize, vol.BlockSize(), ErrNeedsRepair)
	}
	fs := newFS(vol, sb, o)
	orphans, err := fs.loadLocked()
	if err != nil {
		return nil, err
	}
	if !fs.readOnly {
		if err := fs.reclaimOrphans(orphans, true); err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrNeedsRepair)
		}
		fs.stop, fs.stopped = make(chan struct{}), make(chan struct{})
		go fs.flusher()
	}
	return fs, nil
}

// loadLocked loads the inode map, walks the metadata and starts the
// volume; it returns the orphans the walk found.
func (fs *FS) loadLocked() ([]Ino, error) {
	fs.lock()
	defer fs.unlock()
	pieces := fs.vol.Pieces()
	rp, err := fs.takeRecords(pieces)
	if err != nil {
		return nil, err
	}
	if err := fs.imap.loadPieces(pieces, fs.vol.NumBlocks()); err != nil {
		return nil, err
	}
	orphans, err := fs.walkLocked(rp)
	if err == nil && fs.salv != nil {
		err = fs.salvageWalkedLocked(rp)
	}
	if err == nil {
		err = fs.markRecordedLocked(rp)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrNeedsRepair)
	}
	start := time.Now()
	if err := fs.replayLocked(rp); err != nil {
		return nil, err
	}
	if fs.salv != nil && len(fs.salv.lost)+len(fs.salv.cuts) > 0 {
		fs.markDirtySinceLocked() // the salvage's changes, which replay counted as none
	}
	fs.replayed = replayStats{Records: rp.n, Ms: float64(time.Since(start).Microseconds()) / 1000}
	if err := fs.vol.Start(); err != nil {
		return nil, err
	}
	if fs.salv != nil {
		return orphans, nil // a lost root is made again by the repair
	}
	return orphans, fs.checkRootLocked()
}

// reclaimOrphans frees orphans one at a time, each a change of its own
// (lockChange), so that freeing many on a full disk commits as often as
// the free blocks need rather than in one commit too big to ever fit. It
// stops at the first error if stop, else returns the first error after
// trying every orphan.
func (fs *FS) reclaimOrphans(inos []Ino, stop bool) error {
	var first error
	for _, ino := range inos {
		err := fs.lockChange()
		if err == nil {
			err = fs.reclaimLocked(ino)
		}
		fs.unlock()
		if err != nil && first == nil {
			first = fmt.Errorf("reclaiming orphan %d: %w", ino, err)
			if stop {
				break
			}
		}
	}
	return first
}

func (fs *FS) checkRootLocked() error {
	root, err := fs.getLocked(RootIno)
	if err != nil || !root.isDir() {
		return fmt.Errorf("root inode missing or not a directory (%v): %w", err, ErrNeedsRepair)
	}
	return nil
}

// reclaimLocked frees inode ino, which has no link left.
func (fs *FS) reclaimLocked(ino Ino) error {
	in, err := fs.getLocked(ino)
	if err != nil {
		return err
	}
	return fs.freeInodeLocked(in)
}

// walkLocked declares every block the inode map reaches live and marks the
// inodes in use. It reads each inode block and indirect block once and no
// data block. It returns the inodes with no link (orphans). A file block
// the records name (rp) is skipped: its block on the tree is stale.
func (fs *FS) walkLocked(rp *replay) ([]Ino, error) {
	var orphans []Ino
	buf := make([]byte, fs.geo.bs)
	w := walker{fs: fs, bufs: make([][]byte, ondisk.NumIndirect+1), rp: rp, salv: fs.salv}
	var used []ondisk.Inode
	for ibn, a := range fs.imap.addrs {
		if a == 0 {
			continue
		}
		// The whole block decodes before anything in it is walked, so
		// that a salvaging walk can leave out the records that do not.
		used = used[:0]
		rerr := fs.vol.ReadBlock(a, buf)
		err := rerr
		var serr error // the map entry's checksum
		if err == nil {
			serr = fs.geo.verifyMeta(buf, fs.imap.sum(uint64(ibn)))
			err = serr
		}
		if err == nil {
			err = ondisk.DecodeInodeBlock(buf, uint64(ibn)*fs.geo.ipb, func(_ int, n *ondisk.Inode) error {
				if n.Free() {
					return nil
				}
				if n.Ino == 0 {
					return fmt.Errorf("inode 0 in use: %w", ErrCorrupt)
				}
				if err := fs.geo.checkLayout(n); err != nil {
					return err
				}
				used = append(used, *n)
				return nil
			})
		}
		if err != nil && fs.salv != nil && rerr == nil {
			// The block reads: keep every inode record that decodes.
			used, err = fs.salv.slots(buf, uint64(ibn), a, fs.geo.ipb, used[:0], serr), nil
		}
		if err != nil {
			return nil, fmt.Errorf("inode block %d: %w", ibn, err)
		}
		if err := fs.vol.MarkLive(a); err != nil {
			return nil, fmt.Errorf("inode block %d: %w", ibn, err)
		}
		for i := range used {
			n := &used[i]
			fs.imap.markUsed(n.Ino)
			if n.Nlink == 0 {
				orphans = append(orphans, Ino(n.Ino))
			}
			if err := w.inode(n); err != nil {
				return nil, err
			}
		}
	}
	if fs.imap.nodeMap {
		// Every block the map places is live, as inode blocks are, whether
		// a tree names it or not (Check reports a node no tree names).
		for n, a := range fs.imap.nodes {
			if a == 0 {
				continue
			}
			if err := fs.vol.MarkLive(a); err != nil {
				return nil, fmt.Errorf("node %d: %w", n, err)
			}
		}
	}
	return orphans, nil
}

// walker marks the blocks of one inode live.
type walker struct {
	fs *FS
	// regular: the inode walked is a regular file, whose data pointers
	// may be unwritten (and only those: the xattr block and indirect
	// blocks are never, nor any other file's blocks).
	regular bool
	bufs    [][]byte // one indirect-block buffer per height
	rp      *replay  // what the records say (nil: none)
	salv    *salvage // a repair mount: record unreadable trees, do not fail
}

func (w *walker) inode(n *ondisk.Inode) error {
	w.regular = n.Mode&ondisk.ModeType == ondisk.ModeReg
	for i, a := range n.Direct {
		if err := w.markData(n.Ino, uint64(i), a); err != nil {
			return err
		}
	}
	w.regular = false // the xattr block
	err := w.mark(n.Ino, n.Xattr)
	w.regular = n.Mode&ondisk.ModeType == ondisk.ModeReg
	if err != nil {
		return err
	}
	for r, a := range n.Indirect {
		if err := w.tree(n.Ino, a, n.IndirectSum[r], r+1, true, w.fs.geo.rootBase(r)); err != nil {
			return err
		}
	}
	return nil
}

// markData marks file block lbn of ino, at a, live unless a record names
// another address for it.
func (w *walker) markData(ino, lbn, a uint64) error {
	if w.rp != nil && w.rp.overridden(ino, lbn) {
		return nil
	}
	return w.mark(ino, a)
}

func (w *walker) mark(ino uint64, a uint64) error {
	if a == 0 {
		return nil
	}
	if a == ondisk.UnwrittenAddr && w.fs.unwrittenOK && w.regular {
		w.fs.unwritten++ // a reservation: no block, but its space is kept
		return nil
	}
	if err := w.fs.vol.MarkLive(a); err != nil {
		return fmt.Errorf("inode %d: %w", ino, err)
	}
	w.fs.noteOwnedLocked(ino, a) // the compactor's reverse map
	return nil
}

// tree marks the indirect block of height h that ptr names (its address
// for a root, or its node number under the node map) and everything below
// it; base is the first file block it covers. sum is a root's checksum
// (the inode's); a numbered node's is its map entry's.
func (w *walker) tree(ino, ptr uint64, sum uint32, h int, root bool, base uint64) error {
	if ptr == 0 {
		return nil
	}
	a := ptr
	numbered := w.fs.imap.nodeMap && !root
	if numbered {
		if a = w.fs.imap.node(ptr); a == 0 {
			return w.cut(ino, h, base, 0, fmt.Errorf("inode %d: node %d has no address in the map: %w", ino, ptr, ErrCorrupt))
		}
		sum = w.fs.imap.nodeSum(ptr)
	}
	if w.bufs[h] == nil {
		w.bufs[h] = make([]byte, w.fs.geo.bs)
	}
	buf := w.bufs[h]
	if err := w.fs.vol.ReadBlock(a, buf); err != nil {
		return fmt.Errorf("inode %d: indirect block %d: %w", ino, a, err) // I/O: nothing to salvage
	}
	nd := w.fs.geo.newNode()
	ptrs := nd.ptrs
	err := w.fs.geo.verifyMeta(buf, sum)
	if err == nil {
		err = ondisk.DecodeIndirect(buf, ino, h, ptrs, nd.sums)
	}
	if err != nil {
		return w.cut(ino, h, base, a, fmt.Errorf("at %d: %w", a, err))
	}
	if numbered {
		// The map's own walk marks the block live.
		w.fs.noteOwnedLocked(ino, a)
	} else if err := w.mark(ino, a); err != nil {
		return err
	}
	span := w.fs.geo.span(h - 1)
	for i, c := range ptrs {
		var err error
		if h == 1 {
			err = w.markData(ino, base+uint64(i), c)
		} else {
			err = w.tree(ino, c, 0, h-1, false, base+uint64(i)*span)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close writes everything out, commits, reclaims unlinked inodes (nobody
// can hold them open any more) and closes the volume and the device.
func (fs *FS) Close() error {
	fs.lock()
	if fs.closed {
		fs.unlock()
		return fmt.Errorf("close: %w", ErrInvalid)
	}
	fs.unlock()
	if fs.stop != nil {
		close(fs.stop)
		<-fs.stopped
	}
	var err error
	if !fs.readOnly {
		fs.lock()
		orphans := slices.Collect(maps.Keys(fs.orphans))
		fs.unlock()
		err = fs.reclaimOrphans(orphans, false)
	}
	if cerr := fs.closeVolume(); err == nil {
		err = cerr
	}
	return err
}

// closeVolume commits and closes the volume; the FS is unusable after.
func (fs *FS) closeVolume() error {
	fs.lock()
	fs.rec.full = true // a clean stop leaves nothing to replay
	fs.unlock()
	err := fs.syncAll()
	fs.lock()
	fs.closed = true
	fs.unlock()
	if cerr := fs.vol.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return err
}
