package vld

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// recover rebuilds the in-memory log from the disk (see Open).
func (v *Volume) recover() error {
	ck, err := v.loadCheckpoint()
	if err != nil {
		return err
	}
	g := v.log
	if g.extra, err = extraSet(ck, v.layout.NumTracks()); err != nil {
		return err
	}
	g.extraCyls = alloc.ExtraCylinders(ck.Extra, v.layout.Model().Surfaces)
	g.ckpt, g.nextSeq = *ck, ck.NextSeq
	v.recovery.CheckpointSeq = ck.Seq
	named, err := v.loadDirectory(ck)
	if err != nil {
		return err
	}
	root, maxSeen, err := v.findRoot(ck)
	if err != nil {
		return err
	}
	rootEntry, err := v.walkTree(root, ck)
	if err != nil {
		return err
	}
	if err := v.checkDigest(); err != nil {
		return err
	}
	if err := v.checkLive(root, rootEntry); err != nil {
		return err
	}
	for p, de := range named {
		if g.cur[p].ref != de.At {
			g.pinned = append(g.pinned, locOf(de).blocks()...)
		}
	}
	v.dropLostCopies()
	g.root = root
	g.covered = v.groupCovers(root)
	g.sinceCkpt = len(g.entries)
	for _, a := range g.prune(g.covered) {
		v.alloc.MarkFree(int64(a))
		v.recovery.Pruned++
	}
	if maxSeen >= g.nextSeq {
		g.nextSeq = maxSeen + 1
	}
	for s := range g.entries {
		if s >= g.nextSeq {
			g.nextSeq = s + 1
		}
	}
	return nil
}

// groupCovers returns the blocks covered by the group whose last entry is
// root: the group the next recovery will check unless a newer one is logged
// (see vlog.covered). Start keeps those that are free from being reused.
func (v *Volume) groupCovers(root ondisk.Ref) map[Addr]bool {
	g := v.log
	covered := map[Addr]bool{}
	if root.IsZero() {
		return covered
	}
	e, err := v.readEntry(root)
	if err != nil {
		return covered
	}
	for s := e.GroupSeq; s <= root.Seq; s++ {
		le, ok := g.entries[s]
		if !ok {
			continue // not kept: recycled before the crash, nothing to protect
		}
		x, err := v.readEntry(le.ref)
		if err != nil {
			continue
		}
		for _, c := range x.Covers {
			if c.Addr < v.sb.NumBlocks {
				covered[c.Addr] = true
			}
		}
	}
	return covered
}

// loadCheckpoint returns the newest valid checkpoint slot of this volume.
func (v *Volume) loadCheckpoint() (*ondisk.Checkpoint, error) {
	var best *ondisk.Checkpoint
	var valid []*ondisk.Checkpoint
	var errs []error
	for _, a := range []Addr{ondisk.CheckpointA, ondisk.CheckpointB} {
		if err := v.readRaw(a, v.buf); err != nil {
			return nil, fmt.Errorf("open: %w", err)
		}
		c, err := ondisk.DecodeCheckpoint(v.buf)
		if err != nil {
			errs = append(errs, fmt.Errorf("slot %d: %w", a, err))
			continue
		}
		// Before checkpoint version 3 the slots alternated by sequence
		// number; from it on both hold the same checkpoint. Either way the
		// newest valid one wins.
		if c.UUID != v.sb.UUID {
			errs = append(errs, fmt.Errorf("slot %d: checkpoint %d of another volume", a, c.Seq))
			continue
		}
		valid = append(valid, c)
		if best == nil || c.Seq > best.Seq {
			best = c
		}
	}
	if best == nil {
		return nil, fmt.Errorf("open: no valid checkpoint: %w: %w", ErrCorrupt, errors.Join(errs...))
	}
	for _, c := range valid {
		if c.Seq == best.Seq {
			v.recovery.CheckpointSlots++
		}
	}
	return best, nil
}

// loadDirectory reads the checkpoint's piece directory and the entries it
// names, and marks their blocks in use.
func (v *Volume) loadDirectory(ck *ondisk.Checkpoint) (map[uint32]ondisk.DirEntry, error) {
	g := v.log
	named := map[uint32]ondisk.DirEntry{}
	for _, a := range append(slices.Clone(ck.DirBlocks), ck.DirCopies...) {
		if a < ondisk.FixedBlocks || a >= v.sb.NumBlocks || !v.alloc.MarkUsed(int64(a)) {
			return nil, fmt.Errorf("open: checkpoint %d: directory block at %d invalid or shared: %w", ck.Seq, a, ErrCorrupt)
		}
	}
	g.dirList = make([][]ondisk.DirEntry, len(ck.DirBlocks))
	for i, a := range ck.DirBlocks {
		d, err := v.readDirBlock(ck, i, a)
		sound := err == nil
		if i < len(ck.DirCopies) {
			// Its copy (issue 34): same bytes, elsewhere. Read either way,
			// so that a damaged copy is found and written again too.
			cd, cerr := v.readDirBlock(ck, i, ck.DirCopies[i])
			switch {
			case err != nil && cerr == nil:
				d, err = cd, nil
				v.recovery.DirCopiesUsed++
			case err == nil && cerr != nil:
				v.recovery.DirCopiesDamaged++
				sound = false
			}
		}
		if err != nil {
			return nil, err
		}
		if sound {
			g.dirList[i] = d.Entries
		}
		for _, de := range d.Entries {
			named[de.Piece] = de
		}
	}
	if len(named) != int(ck.NumPieces) {
		return nil, fmt.Errorf("open: checkpoint %d lists %d distinct pieces, expected %d: %w", ck.Seq, len(named), ck.NumPieces, ErrCorrupt)
	}
	for p, de := range named {
		ref := de.At
		if ref.Seq > ck.LogSeq {
			return nil, fmt.Errorf("open: checkpoint %d: piece %d at block %d seq %d is newer than the checkpoint: %w", ck.Seq, p, ref.Addr, ref.Seq, ErrCorrupt)
		}
		var payload []byte
		if de.Copies {
			b, err := v.loadCopies(ck, de)
			if err != nil {
				return nil, err
			}
			payload = b
		} else {
			e, err := v.readEntry(ref)
			if err != nil || e.Piece != p {
				return nil, fmt.Errorf("open: checkpoint %d: piece %d at block %d seq %d unreadable: %w: %v", ck.Seq, p, ref.Addr, ref.Seq, ErrCorrupt, err)
			}
			payload = e.Payload
		}
		l := locOf(de)
		for _, a := range l.blocks() {
			if a < ondisk.FixedBlocks || a >= v.sb.NumBlocks || !v.alloc.MarkUsed(int64(a)) {
				return nil, fmt.Errorf("open: checkpoint %d: piece %d at block %d: out of range or shared: %w", ck.Seq, p, a, ErrCorrupt)
			}
		}
		g.setCur(p, l)
		g.payload[p] = payload
	}
	g.dirBlocks = append(slices.Clone(ck.DirBlocks), ck.DirCopies...)
	return named, nil
}

// locOf is the checkpointed place a directory entry names.
func locOf(de ondisk.DirEntry) pieceLoc {
	return pieceLoc{ref: de.At, inCkpt: true, copies: de.Copies, pair: Addr(de.Pair)}
}

// readDirBlock reads and validates directory block i of ck, at a.
func (v *Volume) readDirBlock(ck *ondisk.Checkpoint, i int, a Addr) (*ondisk.DirBlock, error) {
	if err := v.readRaw(a, v.buf); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	d, err := ondisk.DecodeDirBlock(v.buf)
	if err != nil {
		return nil, fmt.Errorf("open: checkpoint %d directory block %d at %d: %w: %w", ck.Seq, i, a, ErrCorrupt, err)
	}
	if d.UUID != v.sb.UUID || d.CkptSeq != ck.DirSeq(i) || d.Index != uint32(i) {
		return nil, fmt.Errorf("open: checkpoint %d directory block %d at %d (written by checkpoint %d) belongs to checkpoint %d index %d: %w", ck.Seq, i, a, ck.DirSeq(i), d.CkptSeq, d.Index, ErrCorrupt)
	}
	return d, nil
}

// checkDigest compares the pieces the walk made current with the digest a
// clean stop's tail recorded: a live entry that does not read is taken
// for a recycled one by the walk, and only this tells them apart. A
// mismatch refuses the volume, naming repair, unless the caller accepts
// the loss (Options.AcceptLoss: the older versions stand, and
// RecoveryInfo.PiecesLost says so).
func (v *Volume) checkDigest() error {
	t := v.cleanTail
	if t == nil || !t.HasDigest || v.recovery.RootDamaged {
		return nil
	}
	n, d := v.log.digest()
	if n == t.Pieces && d == t.Digest {
		return nil
	}
	if !v.opts.AcceptLoss {
		return fmt.Errorf("open: %d pieces rebuilt from the log where the clean stop had %d (digest %#08x, tail %#08x): a live log entry is damaged and what it held would read as an older state; vlfs fsck --repair recovers what remains: %w",
			n, t.Pieces, d, t.Digest, ErrCorrupt)
	}
	v.recovery.PiecesLost = true
	return nil
}

// checkLive compares the pieces the walk made current with the live-set
// digest the root's group carries (ondisk.Entry.Live): after a crash there
// is no clean stop's tail to compare with (checkDigest), and the walk takes
// a live entry that does not read for one the running volume recycled, so
// what it held would silently read as an older state. A mismatch refuses
// the volume naming repair, or, accepting the loss, says so as
// checkDigest does. e is the root entry as the walk read it (nil: there
// is no root, or the checkpoint holds it, and nothing since to check).
// Entries written before the digest carry none.
func (v *Volume) checkLive(root ondisk.Ref, e *ondisk.Entry) error {
	if e == nil || v.recovery.RootDamaged || !e.HasLive || e.Live == v.log.live {
		return nil
	}
	if !v.opts.AcceptLoss {
		return fmt.Errorf("open: the pieces rebuilt from the log do not match the live-set digest of the newest commit (seq %d: %#016x, rebuilt %#016x): a live log entry is damaged and what it held would read as an older state; vlfs fsck --repair recovers what remains: %w",
			root.Seq, e.Live, v.log.live, ErrCorrupt)
	}
	v.recovery.PiecesLost = true
	return nil
}

// readEntry reads and validates the entry ref names.
func (v *Volume) readEntry(ref ondisk.Ref) (*ondisk.Entry, error) {
	if ref.Addr < ondisk.FixedBlocks || ref.Addr >= v.sb.NumBlocks {
		return nil, fmt.Errorf("entry address %d out of range: %w", ref.Addr, ErrCorrupt)
	}
	if err := v.readRaw(ref.Addr, v.buf); err != nil {
		return nil, err
	}
	e, err := ondisk.DecodeEntry(v.buf)
	if err != nil {
		return nil, err
	}
	if e.UUID != v.sb.UUID || e.Seq != ref.Seq {
		return nil, fmt.Errorf("block %d holds seq %d of volume %v, want seq %d: %w", ref.Addr, e.Seq, e.UUID, ref.Seq, ondisk.ErrBadMagic)
	}
	return e, nil
}

// findRoot returns the log's root: from the tail record after a clean stop,
// otherwise from a scan of the log window. maxSeen is the highest sequence
// number seen on disk, which must never be reused.
func (v *Volume) findRoot(ck *ondisk.Checkpoint) (root ondisk.Ref, maxSeen uint64, err error) {
	if err := v.readRaw(ondisk.TailAddr, v.buf); err != nil {
		return root, 0, fmt.Errorf("open: %w", err)
	}
	v.openTail = bytes.Clone(v.buf) // for Abandon
	t, err := ondisk.DecodeTail(v.buf)
	if err != nil || t.UUID != v.sb.UUID || t.CkptSeq != ck.Seq {
		return v.scanForRoot(ck)
	}
	v.recovery.Clean = true
	v.cleanTail = t
	v.m.setNow(float64frombits(t.SimMs))
	if t.Root.IsZero() || t.Root.Seq <= ck.LogSeq {
		return t.Root, t.NextSeq - 1, nil
	}
	if _, rerr := v.readEntry(t.Root); rerr != nil {
		// The newest entry, acknowledged before the clean stop, does not
		// read: its commit is lost. The state before it is what a torn
		// newest group leaves (scanForRoot), but nothing may drop an
		// acknowledged commit silently: only a repair takes it.
		if !v.opts.AcceptLoss {
			return root, 0, fmt.Errorf("open: the newest log entry (block %d, seq %d) is damaged, so the last commit before the clean stop is lost; vlfs fsck --repair recovers the state before it: %w: %w",
				t.Root.Addr, t.Root.Seq, ErrCorrupt, rerr)
		}
		v.recovery.RootDamaged = true
		root, maxSeen, err := v.scanForRoot(ck)
		return root, max(maxSeen, t.NextSeq-1), err
	}
	return t.Root, t.NextSeq - 1, nil
}

// walkTree visits every entry reachable from root and makes the newest
// version of each piece current. It returns the root entry as it read it
// (nil when there is no root, or the checkpoint already holds it).
func (v *Volume) walkTree(root ondisk.Ref, ck *ondisk.Checkpoint) (*ondisk.Entry, error) {
	if root.IsZero() {
		return nil, nil
	}
	var rootEntry *ondisk.Entry
	g := v.log
	stack := []ondisk.Ref{root}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, seen := g.entries[r.Seq]; seen || r.Seq <= ck.LogSeq {
			continue
		}
		e, err := v.readEntry(r)
		if err != nil {
			if r == root {
				return nil, fmt.Errorf("open: log root at block %d seq %d: %w: %w", r.Addr, r.Seq, ErrCorrupt, err)
			}
			continue // dangling: the target was recycled
		}
		if r == root {
			rootEntry = e
		}
		if !v.alloc.MarkUsed(int64(r.Addr)) {
			return nil, fmt.Errorf("open: log entry seq %d at block %d shares its block: %w", r.Seq, r.Addr, ErrCorrupt)
		}
		g.entries[r.Seq] = &logEntry{ref: r, piece: e.Piece, ptrs: e.Ptrs}
		v.recovery.Entries++
		if cur, ok := g.cur[e.Piece]; !ok || cur.ref.Seq < r.Seq {
			g.setCur(e.Piece, pieceLoc{ref: r})
			g.payload[e.Piece] = e.Payload
		}
		stack = append(stack, e.Ptrs...)
	}
	return rootEntry, nil
}
