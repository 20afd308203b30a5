package vld

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// Tuning of the virtual log. Not wire constants: a volume written with other
// values recovers the same way.
const (
	// checkpointEvery bounds the tree (and so recovery work): a checkpoint
	// is taken once this many entries are present.
	checkpointEvery = 1024
	// minEntriesBeforeMove keeps a head that wanders (reads) from forcing a
	// checkpoint on every commit: the log window moves to the head only once
	// this many entries were written in the current one.
	minEntriesBeforeMove = 64
)

// Commit makes every block written so far and the given piece payloads
// durable, atomically: a crash recovers either the state before the call
// or the state after it.
//
// Ordering: data blocks may still be in flight when the log entries are
// written; the entries of one commit form a group that carries the CRC of
// every block written since the previous commit ("covers"), so recovery
// can tell whether the newest group landed whole. When the covers do not
// fit in the group, the data is flushed first instead. One device flush
// ends the commit. The volume copies the payloads: the caller may reuse
// them once Commit returns.
func (v *Volume) Commit(pieces map[uint32][]byte) error {
	for p, b := range pieces {
		if len(b) > v.PayloadSize() {
			return fmt.Errorf("commit: piece %d payload %d bytes > %d: %w", p, len(b), v.PayloadSize(), ErrInvalid)
		}
	}
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return err
	}
	if v.opts.ReadOnly {
		return ErrReadOnly
	}
	defer v.endGatherLocked()
	return v.commitLocked(pieces)
}

// commitLocked is Commit with both locks held.
func (v *Volume) commitLocked(pieces map[uint32][]byte) error {
	if len(pieces) == 0 && len(v.written) == 0 && len(v.pending) == 0 {
		return nil
	}
	covers := v.takeCoversLocked()
	frees := v.takePendingLocked()
	if len(pieces) > 0 && len(covers) > len(pieces)*v.maxCovers(ondisk.MaxPtrs) {
		if err := v.flushLocked(); err != nil {
			return err
		}
		covers = nil
	}
	logged := len(pieces) > 0
	if logged {
		freed, err := v.writeGroupLocked(pieces, covers)
		if err != nil {
			if v.failed == nil {
				v.restoreLocked(covers, frees) // nothing was logged: try again later
			}
			return err
		}
		frees = append(frees, freed...)
	}
	v.endGatherLocked()
	if logged || len(covers) > 0 {
		if err := v.flushUnlocked(); err != nil {
			return err
		}
	}
	// A commit that only frees blocks needs no flush: it wrote nothing, so
	// the durable state is the one the last commit's flush left, and the
	// client freed these blocks because that state no longer reaches them
	// (a block the newest group covers stays pending, releaseFreesLocked).
	v.releaseFreesLocked(frees, logged)
	v.stats.Commits++
	if v.log.sinceCkpt >= v.checkpointEvery() {
		return v.checkpointLocked(false)
	}
	return nil
}

// releaseFreesLocked makes the blocks a durable commit freed reusable. A
// commit that logged no group leaves the newest group as it was: the blocks
// that group covers stay pending until a newer group (or a clean close)
// makes them unneeded, since recovery still compares them to its covers.
func (v *Volume) releaseFreesLocked(frees []Addr, logged bool) {
	for _, a := range frees {
		if !logged && v.log.covered[a] {
			v.pending[a] = true
			continue
		}
		v.alloc.MarkFree(int64(a))
	}
}

// restoreLocked puts back what a commit that logged nothing had taken.
func (v *Volume) restoreLocked(covers []ondisk.Cover, frees []Addr) {
	for _, c := range covers {
		v.written[c.Addr] = c.CRC
	}
	for _, a := range frees {
		v.pending[a] = true
	}
}

// takeCoversLocked snapshots the blocks written since the last commit.
func (v *Volume) takeCoversLocked() []ondisk.Cover {
	covers := v.commit.covers[:0]
	for a, c := range v.written {
		covers = append(covers, ondisk.Cover{Addr: a, CRC: c})
	}
	slices.SortFunc(covers, func(a, b ondisk.Cover) int { return cmp.Compare(a.Addr, b.Addr) })
	v.written = emptied(v.written)
	v.commit.covers = covers
	return covers
}

// emptied empties a per-commit set for reuse; one that grew large is
// dropped instead, as ranging over a map costs its peak size, not its
// length.
func emptied[V any](m map[Addr]V) map[Addr]V {
	if len(m) > 64 {
		return map[Addr]V{}
	}
	clear(m)
	return m
}

// writeGroupLocked writes one entry per piece, as one commit group, inside
// the log window. It returns the blocks the tree recycled.
func (v *Volume) writeGroupLocked(pieces map[uint32][]byte, covers []ondisk.Cover) ([]Addr, error) {
	runs, err := v.placeInWindowLocked(len(pieces))
	if err != nil {
		return nil, err
	}
	blocks, freed, rest, err := v.buildGroupLocked(pieces, covers, runAddrs(runs))
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		// Pointers took more room than planned: make the data durable first.
		if err := v.flushLocked(); err != nil {
			return nil, err
		}
	}
	if err := v.writeRunsLocked(runs, blocks); err != nil {
		return nil, err
	}
	return freed, nil
}

// placeInWindowLocked places n blocks inside the log window, moving the
// window to the head first (a checkpoint) if the head has left it, if the
// window has no room, or if empty tracks lie only outside it and its extra
// tracks (wantRegisterLocked).
func (v *Volume) placeInWindowLocked(n int) ([]run, error) {
	if r, ok := v.extendLocked(n, v.logWindow()); ok {
		return []run{r}, nil
	}
	if err := v.drainLocked(); err != nil { // the head must be where it really is
		return nil, err
	}
	headLeft := !v.logWindow().Contains(v.m.headTrack(), v.layout.NumTracks()) && v.log.sinceCkpt >= min(minEntriesBeforeMove, v.checkpointEvery()/2)
	if headLeft || v.wantRegisterLocked() {
		if err := v.checkpointLocked(false); err != nil {
			return nil, err
		}
	}
	runs, err := v.placeLocked(n, v.logWindow())
	if err == nil {
		return runs, nil
	}
	if err := v.checkpointLocked(false); err != nil {
		return nil, err
	}
	if runs, err = v.placeLocked(n, v.logWindow()); err != nil {
		return nil, fmt.Errorf("virtual log: %w", err)
	}
	return runs, nil
}

// buildGroupLocked adds one entry per piece to the tree, at addrs, and
// encodes them with as many covers as fit. It returns the encoded blocks
// (the volume's scratch, to be written before the commit ends), the blocks
// the tree recycled and the covers that did not fit.
func (v *Volume) buildGroupLocked(pieces map[uint32][]byte, covers []ondisk.Cover, addrs []Addr) ([][]byte, []Addr, []ondisk.Cover, error) {
	order := v.commit.order[:0]
	for p := range pieces {
		order = append(order, p)
	}
	slices.Sort(order)
	v.commit.order = order
	g := v.log
	groupSeq, prevRoot := g.nextSeq, g.root
	live := g.liveAfter(order, groupSeq)
	var freed []Addr
	blocks := v.commit.entryBlocks(len(order), v.bs)
	if len(order) > 0 {
		if g.covered = emptied(g.covered); g.covered == nil {
			g.covered = map[Addr]bool{}
		}
	}
	for i, p := range order {
		ref := ondisk.Ref{Addr: addrs[i], Seq: g.nextSeq}
		g.nextSeq++
		ptrs, f := g.add(p, ref)
		freed = append(freed, f...)
		payload := g.payload[p] // nothing outside the log holds it (Pieces copies)
		if len(payload) != v.PayloadSize() {
			payload = make([]byte, v.PayloadSize())
		}
		clear(payload[copy(payload, pieces[p]):])
		g.payload[p] = payload
		e := ondisk.Entry{
			UUID: v.sb.UUID, Seq: ref.Seq, GroupSeq: groupSeq, GroupCount: uint32(len(order)),
			Piece: p, PrevRoot: prevRoot, Ptrs: ptrs, Payload: payload,
			HasLive: true, Live: live, Sectors: v.sb.SectorEntries,
		}
		k := min(v.maxCovers(len(ptrs)), len(covers))
		e.Covers, covers = covers[:k], covers[k:]
		for _, c := range e.Covers {
			g.covered[c.Addr] = true
		}
		if err := e.Encode(blocks[i]); err != nil {
			v.failed = fmt.Errorf("vld: encoding log entry: %w", err)
			return nil, nil, nil, v.failed
		}
		blocks[i] = blocks[i][:e.Len(v.bs)] // a sector entry's write stops after it (writeRunsLocked)
	}
	v.stats.LogEntries += int64(len(order))
	g.sinceCkpt += len(order)
	return blocks, freed, covers, nil
}

// writeRunsLocked writes blocks, in order, over the runs they were placed in.
// A block shorter than the block size (a sector-sized log entry) ends its
// write early when it is the last of its run; inside a run it is written
// whole (its buffer is a whole block, cleared past the entry), since the
// run is one contiguous request.
func (v *Volume) writeRunsLocked(runs []run, blocks [][]byte) error {
	i := 0
	for _, r := range runs {
		bs := blocks[i : i+r.N]
		for j := 0; j < len(bs)-1; j++ {
			bs[j] = bs[j][:v.bs]
		}
		if err := v.writeRunLocked(r, bs); err != nil {
			return err
		}
		i += r.N
	}
	return nil
}

// maxCovers is how many covers fit in an entry with nptrs pointers.
func (v *Volume) maxCovers(nptrs int) int {
	if v.sb.SectorEntries {
		return ondisk.MaxCoversSectors(v.bs, nptrs)
	}
	return ondisk.MaxCovers(v.bs, nptrs)
}

func runAddrs(runs []run) []Addr {
	var out []Addr
	for _, r := range runs {
		for i := 0; i < r.N; i++ {
			out = append(out, Addr(r.Start)+Addr(i))
		}
	}
	return out
}

func (v *Volume) checkpointEvery() int {
	if v.opts.CheckpointEvery > 0 {
		return v.opts.CheckpointEvery
	}
	return checkpointEvery
}

// logWindow is the tracks every entry since the checkpoint lies in: its
// window and its extra tracks (log_tracks.go).
func (v *Volume) logWindow() alloc.Window {
	return alloc.Window{Start: int(v.log.ckpt.WindowStart), N: int(v.log.ckpt.WindowTracks), Extra: v.log.extra, ExtraCyls: v.log.extraCyls}
}

// flushLocked makes every write so far durable, holding mu.
func (v *Volume) flushLocked() error {
	if err := v.drainLocked(); err != nil {
		return err
	}
	if err := v.timedFlush(); err != nil {
		v.failed = fmt.Errorf("vld: device flush failed, volume stopped: %w", err)
		return v.failed
	}
	v.stats.Flushes++
	return nil
}

// flushUnlocked flushes with mu released, so that reads and new writes
// proceed meanwhile; commitMu keeps other commits out.
func (v *Volume) flushUnlocked() error {
	if err := v.drainLocked(); err != nil {
		return err
	}
	v.mu.Unlock()
	err := v.timedFlush()
	v.mu.Lock()
	if err != nil {
		v.failed = fmt.Errorf("vld: device flush failed, volume stopped: %w", err)
		return v.failed
	}
	v.stats.Flushes++
	return nil
}

// timedFlush flushes the device and records how long it took (wall).
func (v *Volume) timedFlush() error {
	start := time.Now()
	err := v.dev.Flush()
	v.wall.flush.Since(start)
	return err
}
