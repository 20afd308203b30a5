package vld

import (
	"fmt"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vld/place"
)

// run is a contiguous range of blocks chosen for one request: the
// placement policies' Run (vld/place).
type run = place.Run

// maxTrackBlocks is the capacity of the largest track. Track capacities
// never change, so it is computed once: it is asked on every placement, and
// a large disk has tens of thousands of tracks.
func (v *Volume) maxTrackBlocks() int {
	if v.maxTrack > 0 {
		return v.maxTrack
	}
	mx := 1
	for t := range v.alloc.NumTracks() {
		if c := v.alloc.TrackCap(t); int(c) > mx {
			mx = int(c)
		}
	}
	v.maxTrack = mx
	return mx
}

// WriteBlocks writes data eagerly near the head and returns where each block
// went. The writes are not durable until the next Commit. The volume keeps
// none of data's or o's slices once it returns (the device, or a gathered
// run, has its own copy), so the caller may reuse them.
func (v *Volume) WriteBlocks(data [][]byte, o WriteOpts) ([]Addr, error) {
	if len(data) == 0 {
		return nil, nil
	}
	for i, d := range data {
		if len(d) != v.bs {
			return nil, fmt.Errorf("write block %d: %d bytes, block size %d: %w", i, len(d), v.bs, ErrInvalid)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return nil, err
	}
	if v.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if !v.sched.Direct() {
		return v.writeQueuedLocked(data, o)
	}
	need := int64(len(data))
	if (!o.Meta && v.alloc.Free()-need < v.reserve) || v.alloc.Free() < need {
		return nil, fmt.Errorf("writing %d blocks with %d free (%d reserved): %w", need, v.alloc.Free(), v.reserve, ErrNoSpace)
	}
	v.hintLocked(o, len(data))
	runs, err := v.placeEagerLocked(len(data))
	if err != nil {
		return nil, err
	}
	addrs := make([]Addr, 0, len(data))
	i := 0
	for _, r := range runs {
		if err := v.writeRunLocked(r, data[i:i+r.N]); err != nil {
			return nil, err
		}
		for j := 0; j < r.N; j++ {
			a := Addr(r.Start) + Addr(j)
			addrs = append(addrs, a)
			v.written[a] = blockCRC(data[i+j])
		}
		i += r.N
	}
	return addrs, nil
}

// writeRunLocked issues one device write for a run and charges its
// simulated time, unless the run joins the writes a gather holds back
// (gather.go). A device error is fatal for the volume: memory may now
// disagree with the disk.
func (v *Volume) writeRunLocked(r run, blocks [][]byte) error {
	if held, err := v.holdLocked(r, blocks); held || err != nil {
		return err
	}
	tail := tailSectors(blocks, v.bs)
	start := time.Now()
	_, err := device.WriteRun(v.dev, v.wholeLastLocked(blocks), r.Start*int64(v.bs))
	v.wall.write.Since(start)
	clear(v.padVec) // keeps none of the caller's blocks
	if err != nil {
		v.failed = fmt.Errorf("vld: device write at block %d failed, volume stopped: %w", r.Start, err)
		return v.failed
	}
	v.chargeWriteLocked(r, tail)
	return nil
}

// wholeLastLocked is blocks with a short last block (a sector-granular log
// entry) completed with zeros: the device is given whole blocks, and the
// simulated disk is charged the entry's sectors alone (chargeWriteLocked).
// The rest of an entry's block is its own, so zeros there cost nothing;
// a short write cost the host much: a write into part of a page the page
// cache does not hold makes the kernel read the page first
// (BenchmarkWriteFsync/v3/file: 15 us in the device write with whole
// blocks, 76-88 us with short ones), and a disk with 4 KiB physical
// sectors would do the same inside. blocks itself is not changed.
func (v *Volume) wholeLastLocked(blocks [][]byte) [][]byte {
	n := len(blocks)
	if n == 0 || len(blocks[n-1]) >= v.bs {
		return blocks
	}
	if cap(v.padBuf) < v.bs {
		v.padBuf = make([]byte, v.bs)
	}
	pad := v.padBuf[:v.bs]
	clear(pad[copy(pad, blocks[n-1]):])
	v.padVec = append(append(v.padVec[:0], blocks[:n-1]...), pad)
	return v.padVec
}

// tailSectors is how many sectors of its last block a write of blocks
// transfers: 0 when that block is whole.
func tailSectors(blocks [][]byte, bs int) int {
	if n := len(blocks); n > 0 && len(blocks[n-1]) < bs {
		return len(blocks[n-1]) / disk.SectorSize
	}
	return 0
}

// chargeWriteLocked charges one write request of run r to the simulated
// disk and counts it; tail > 0 is the sectors of its last block written,
// when not all of them.
func (v *Volume) chargeWriteLocked(r run, tail int) {
	bd := v.m.service(r.Start, r.N, tail, true)
	v.stats.Sim.Add(bd)
	v.stats.WriteSim.Add(bd)
	v.stats.Writes++
	v.stats.BlocksWritten += int64(r.N)
	spb := int64(v.bs / disk.SectorSize)
	v.stats.SectorsWritten += int64(r.N) * spb
	if tail > 0 {
		v.stats.SectorsWritten -= spb - int64(tail)
	}
}

// ReadBlock reads block a into buf.
func (v *Volume) ReadBlock(a Addr, buf []byte) error {
	if len(buf) != v.bs {
		return fmt.Errorf("read block %d: buffer %d bytes, block size %d: %w", a, len(buf), v.bs, ErrInvalid)
	}
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(false); err != nil {
		return err
	}
	if v.phase == phaseRun && !v.sched.Direct() {
		return v.readQueuedLocked(a, [][]byte{buf})
	}
	if err := v.drainLocked(); err != nil {
		return err
	}
	if _, err := v.dev.ReadAt(buf, int64(a)*int64(v.bs)); err != nil {
		return fmt.Errorf("vld: read block %d: %w", a, err)
	}
	if v.phase == phaseRun {
		bd := v.m.service(int64(a), 1, 0, false)
		v.stats.Sim.Add(bd)
		v.stats.Reads++
		v.stats.BlocksRead++
	}
	return nil
}

// Free tells the volume the client no longer references block a. A block
// written since the last commit is free at once; any other may be reused
// only after the next commit is durable, since the durable state may still
// reference it.
func (v *Volume) Free(a Addr) error {
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("free: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return err
	}
	if !v.alloc.IsUsed(int64(a)) {
		return fmt.Errorf("free of block %d, which is not in use: %w", a, ErrCorrupt)
	}
	if _, ok := v.written[a]; ok {
		delete(v.written, a)
		v.alloc.MarkFree(int64(a))
		return nil
	}
	if v.pending[a] {
		return fmt.Errorf("block %d freed twice: %w", a, ErrCorrupt)
	}
	v.pending[a] = true
	return nil
}

// MarkLive declares, during the mount phase, a block the client references.
func (v *Volume) MarkLive(a Addr) error {
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("mark live: %w: %w", err, ErrCorrupt)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.phase != phaseMount {
		return fmt.Errorf("MarkLive after Start: %w", ErrPhase)
	}
	if !v.alloc.MarkUsed(int64(a)) {
		return fmt.Errorf("block %d referenced twice (or by the volume itself): %w", a, ErrCorrupt)
	}
	return nil
}

// Start ends the mount phase: every block not marked by the client or used
// by the volume itself is free from now on.
func (v *Volume) Start() error {
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.phase != phaseMount {
		return fmt.Errorf("Start twice: %w", ErrPhase)
	}
	v.phase = phaseRun
	v.alloc.SetActive(-1)
	defer v.alloc.ResetCost() // the mount found its blocks; it placed none
	// A block the newest group covers must keep its contents until a newer
	// group is logged, even when the client no longer references it:
	// recovery compares it with the group's covers (vlog.covered).
	for a := range v.log.covered {
		if !v.alloc.IsUsed(int64(a)) {
			v.alloc.MarkUsed(int64(a))
			v.pending[a] = true
		}
	}
	// A checkpoint read from one slot, or with a directory block read
	// from its copy, has lost its redundancy: write it whole again now
	// (every block in use is known), as block 0 is from a copy at Open.
	r := &v.recovery
	degraded := r.DirCopiesUsed+r.DirCopiesDamaged+r.PieceCopiesDamaged > 0 || (r.CheckpointSlots == 1 && v.log.ckpt.Version >= ondisk.CheckpointVersion)
	if degraded && !v.opts.ReadOnly {
		// At rest: a piece that lost a copy gets two again.
		if err := v.checkpointLocked(true); err != nil {
			return fmt.Errorf("start: writing the checkpoint again: %w", err)
		}
		r.CheckpointMended = true
	}
	return nil
}

// fixedAddrs are the blocks every volume keeps for itself.
func fixedAddrs() []Addr {
	return []Addr{ondisk.SuperblockAddr, ondisk.CheckpointA, ondisk.CheckpointB, ondisk.TailAddr}
}

// WriteAt writes consecutive blocks at an exact address: the classic disk
// write, for update-in-place baselines. Every block must already be in use
// by the client (marked live or written before). Not durable until the next
// Commit; an overwrite in place is not atomic across a crash.
func (v *Volume) WriteAt(a Addr, data [][]byte) error {
	if len(data) == 0 {
		return nil
	}
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("write at: %w", err)
	}
	if err := v.checkAddr(a + Addr(len(data)) - 1); err != nil {
		return fmt.Errorf("write at: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return err
	}
	if v.opts.ReadOnly {
		return ErrReadOnly
	}
	for i := range data {
		if len(data[i]) != v.bs {
			return fmt.Errorf("write at %d: block of %d bytes: %w", a+Addr(i), len(data[i]), ErrInvalid)
		}
		if !v.alloc.IsUsed(int64(a) + int64(i)) {
			return fmt.Errorf("write at %d: block not allocated: %w", a+Addr(i), ErrInvalid)
		}
	}
	if !v.sched.Direct() {
		return v.writeAtQueuedLocked(a, data)
	}
	if err := v.writeRunLocked(run{Start: int64(a), N: len(data)}, data); err != nil {
		return err
	}
	for i := range data {
		v.written[a+Addr(i)] = blockCRC(data[i])
	}
	return nil
}
