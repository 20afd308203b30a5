package vlfs

import (
	"errors"
	"fmt"
	"math"

	"github.com/vlfs/vlfs/vld"
)

// Buffered file data is written out in batches with FS.mu released while
// the volume writes each one, so that a large write-out (a big fsync, or
// a writer past the dirty limit) holds up no other operation: a read of
// another file resolves its blocks and queues at the volume, whose
// scheduler lets it go before the next write batch (reads first, as in
// Carson and Setia), instead of waiting for the whole write-out.
//
// A batch is a list of buffered blocks ("flights"), picked under FS.mu.
// Their buffers stay in in.data while the volume writes them, so reads,
// seeks and the compactor see the block as buffered, as before; nothing
// changes them in place meanwhile: a change copies the buffer first
// (ownBufLocked), leaving the batch its own, now stale, copy. Back under
// FS.mu, a block whose buffer is still the file's is pointed at its new
// address and unbuffered, exactly as a write-out under FS.mu would do
// it; a block changed, truncated or freed meanwhile ("superseded") keeps
// its newer state, and the new address, which nothing references, is
// freed. Only the identity of the buffer decides: no version counter is
// needed, since every change of a flying buffer replaces it.
//
// Durability is unchanged: as with any write-out before a commit, the new
// addresses become reachable only with the next commit's snapshot.

// flight is one buffered block being written without FS.mu.
type flight struct {
	in      *inode
	lbn     uint64
	buf     []byte
	old     vld.Addr // lbn's address when picked (0: none)
	through bool     // a write-through's block: not worth keeping in the recent cache
}

// unlockedWriteOut says whether buffered data may be written without
// FS.mu on this volume. An in-place volume rewrites a block over its old
// copy, which the committed state may still reference: a superseded
// write there could not be undone.
func (fs *FS) unlockedWriteOut() bool {
	return !fs.readOnly && fs.vol.Placement() != vld.PlaceInPlace
}

// writeOutData writes buffered file data in batches of at most writeChunk
// blocks, FS.mu released during each batch's I/O, until at most keep
// bytes remain buffered or nothing more can be picked. It takes FS.mu
// itself. A volume that refuses a batch for lack of space (or fails)
// leaves the blocks buffered: the next commit, whose write-out may use the
// reserve, writes them or reports the error.
func (fs *FS) writeOutData(keep int64) error {
	if !fs.unlockedWriteOut() {
		return nil
	}
	fs.mu.Lock() // not fs.lock/unlock between batches: no cache shrinking, no early write-out mid-way
	defer fs.unlock()
	// A budget fixed on entry: writers streaming meanwhile must not keep
	// the caller (a commit, an fsync) here for ever. Blocks already
	// flying are not waited for here; a commit waits for those picked
	// before it (waitFlightsLocked).
	budget := fs.dirtyBytes - keep
	for budget > 0 && !fs.closed && fs.failed == nil && fs.dirtyBytes > keep {
		fl, ws, err := fs.pickFlightsLocked(writeChunk)
		if err != nil || len(fl) == 0 {
			fs.landFlightsLocked(fl, nil)
			return err
		}
		budget -= int64(len(fl)) * int64(fs.geo.bs)
		if err := fs.flyLocked(fl, ws); err != nil {
			if errors.Is(err, ErrNoSpace) {
				return nil // the commit's own write-out decides
			}
			return err
		}
	}
	return nil
}

// flyLocked writes a picked batch with FS.mu released during the volume's
// I/O, then lands it. FS.mu is held on entry and on return.
func (fs *FS) flyLocked(fl []flight, ws flightWrites) error {
	fs.stats.batchWrites.Add(1)
	fs.mu.Unlock()
	addrs, werr := fs.vol.WriteBlocks(ws.bufs, ws.opts)
	fs.mu.Lock()
	if werr == nil && len(addrs) != len(fl) {
		werr = fmt.Errorf("volume returned %d addresses for %d blocks: %w", len(addrs), len(fl), ErrCorrupt)
	}
	if werr != nil {
		fs.landFlightsLocked(fl, nil)
		return fs.volErr("write", werr)
	}
	return fs.landFlightsLocked(fl, addrs)
}

// flightWrites are a batch's blocks and hints as WriteBlocks takes them.
type flightWrites struct {
	bufs [][]byte
	opts vld.WriteOpts
}

func newFlightWrites() flightWrites {
	return flightWrites{opts: vld.WriteOpts{Near: []vld.Addr{}, Replaces: []bool{}}}
}

// pickFlightsLocked picks up to limit buffered blocks not already flying,
// in inode then block order (so that a file's blocks stay one chain, as
// dataWritesLocked places them), and marks them flying.
func (fs *FS) pickFlightsLocked(limit int) ([]flight, flightWrites, error) {
	var fl []flight
	ws := newFlightWrites()
	for _, in := range fs.sortedDirtyLocked() {
		if len(fl) >= limit {
			break
		}
		for _, lbn := range sortedLbns(in.data) {
			if len(fl) >= limit {
				break
			}
			if err := fs.pickFlightLocked(&fl, &ws, in, lbn, false); err != nil {
				return fl, ws, err
			}
		}
	}
	return fl, ws, nil
}

// pickFlightLocked adds in's buffered block lbn to the batch and marks it
// flying, unless it is not buffered, already flying, or a bare
// reservation (a shared zero block: the commit's to write). through marks
// a write-through's block.
func (fs *FS) pickFlightLocked(fl *[]flight, ws *flightWrites, in *inode, lbn uint64, through bool) error {
	buf := in.data[lbn]
	if buf == nil {
		return nil
	}
	if _, ok := fs.flying[&buf[0]]; ok {
		return nil
	}
	if err := fs.prepareLocked(in, lbn); err != nil {
		return err
	}
	old, err := fs.bmapLocked(in, lbn)
	if err != nil {
		return err
	}
	near, rep := fs.nearLocked(in, lbn)
	if n := len(*fl); !rep && n > 0 && (*fl)[n-1].in == in && (*fl)[n-1].lbn == lbn-1 {
		near = ws.opts.Near[n-1] // follows the previous block, as one chain
	}
	fs.flights++
	fs.flying[&buf[0]] = fs.flights
	*fl = append(*fl, flight{in: in, lbn: lbn, buf: buf, old: old, through: through})
	ws.bufs = append(ws.bufs, buf)
	ws.opts.Near = append(ws.opts.Near, near)
	ws.opts.Replaces = append(ws.opts.Replaces, rep)
	return nil
}

// landFlightsLocked ends the flights: with addrs (the batch was written),
// each block still buffered as picked is pointed at its new address and
// unbuffered, and the address of a superseded one is freed; without
// (nothing was written), they are only no longer flying.
func (fs *FS) landFlightsLocked(fl []flight, addrs []vld.Addr) error {
	var first error
	if len(fl) > 0 {
		defer fs.landed.Broadcast()
	}
	for i, f := range fl {
		delete(fs.flying, &f.buf[0])
		if addrs == nil {
			continue
		}
		a := addrs[i]
		cur, ok := f.in.data[f.lbn]
		live := ok && cur != nil && &cur[0] == &f.buf[0] && fs.inodes[f.in.ino] == f.in
		if !live {
			fs.stats.supersededBlocks.Add(1)
			if a != f.old { // a new block nothing references
				fs.freeBlockLocked(a)
			}
			continue
		}
		if err := fs.prepareLocked(f.in, f.lbn); err != nil {
			// The path is no longer loadable: the block stays buffered
			// and the new copy is dropped; the commit will report it.
			fs.freeBlockLocked(a)
			first = errors.Join(first, err)
			continue
		}
		if err := fs.setPtrLocked(f.in, f.lbn, a); err != nil {
			first = errors.Join(first, err)
			continue
		}
		fs.forgetDirtyLocked(f.in, f.lbn, f.buf)
		if f.through {
			// A stream's blocks would only push out what is worth keeping
			// (and each would keep its write's whole slab alive).
			fs.cm.recent.drop(a)
		} else {
			fs.cm.recent.put(a, f.buf) // no longer the file's buffer: never changed again
		}
	}
	return first
}

// waitFlightsLocked waits until every batch picked before the call has
// landed, so that a commit does not write their blocks a second time
// under FS.mu. Batches picked meanwhile are not waited for: a stream of
// write-throughs cannot hold a commit off.
func (fs *FS) waitFlightsLocked() {
	upTo := fs.flights
	for {
		oldest := uint64(math.MaxUint64)
		for _, n := range fs.flying {
			oldest = min(oldest, n)
		}
		if oldest > upTo {
			return
		}
		fs.landed.Wait()
	}
}

// ownBufLocked returns in's buffer of block lbn, b, ready to be changed in
// place: a buffer a batch is writing without FS.mu is copied first, and
// the copy becomes the file's (writeout_batch.go).
func (fs *FS) ownBufLocked(in *inode, lbn uint64, b []byte) []byte {
	if b == nil {
		return b
	}
	if _, ok := fs.flying[&b[0]]; !ok {
		return b
	}
	nb := make([]byte, len(b))
	copy(nb, b)
	in.data[lbn] = nb
	return nb
}
