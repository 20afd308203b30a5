package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Pieces at rest (issue 34). A log entry is the only copy of the piece
// version it carries: writing every entry twice would double the blocks
// of a synchronous update (issue 33 wants fewer). Instead a checkpoint at
// rest (Close, and Protect at idle time) writes two copies of every
// piece version that has fewer (ondisk.PieceCopy) in its eager request
// and names them in the directory in place of the entry, so a cleanly
// stopped volume keeps every piece twice, as btrfs keeps metadata DUP on
// one disk. What was committed since the last checkpoint at rest is in
// single log entries until the next one: a crash plus a damaged entry of
// that span is a double fault.

// protectLocked takes a checkpoint at rest unless every piece already
// has two copies and nothing was logged since, or the copies do not fit.
func (v *Volume) protectLocked() error {
	if k := v.uncopiedLocked(); k > 0 && v.copiesFitLocked(k) {
		return v.checkpointLocked(true)
	}
	return nil
}

// uncopiedLocked counts the pieces with fewer than two copies.
func (v *Volume) uncopiedLocked() int {
	k := 0
	for _, l := range v.log.cur {
		if !l.redundant() {
			k++
		}
	}
	return k
}

// copiesFitLocked reports whether two copies of k pieces fit beside the
// reserve, which deletes on a full disk need to commit (a copy is never
// worth a delete that cannot be made), on a volume whose blocks the
// directory can name (ondisk.MaxPairAddr); when they do not, the pieces
// stay as they are, counted in Stats.PieceCopiesSkipped.
func (v *Volume) copiesFitLocked(k int) bool {
	if v.alloc.Free()-int64(2*k) >= v.reserve && v.sb.NumBlocks <= ondisk.MaxPairAddr+1 {
		return true
	}
	v.stats.PieceCopiesSkipped += int64(k)
	return false
}

// Protect takes a checkpoint at rest now if any piece version has fewer
// than two copies (see above): for a client at idle time, right after a
// commit, so that a long mount does not keep its pieces in single log
// entries until it stops. It does nothing while blocks written or freed
// since the last commit wait for the next one.
func (v *Volume) Protect() error {
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writableLocked(); err != nil {
		return err
	}
	if len(v.written) > 0 || len(v.pending) > 0 || v.gather.active {
		return nil
	}
	if err := v.drainLocked(); err != nil {
		return err
	}
	return v.protectLocked()
}

// pieceCopyBlocks encodes the two copies of each piece in ps.
func (v *Volume) pieceCopyBlocks(ps []uint32) ([][]byte, error) {
	blocks := make([][]byte, 0, 2*len(ps))
	for _, p := range ps {
		for i := range uint16(2) {
			b := make([]byte, v.bs)
			c := ondisk.PieceCopy{UUID: v.sb.UUID, Piece: p, Seq: v.log.cur[p].ref.Seq, Index: i, Payload: v.log.payload[p]}
			if err := c.Encode(b); err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

// readCopy reads the copy of version seq of piece p at a.
func (v *Volume) readCopy(p uint32, a Addr, seq uint64) (*ondisk.PieceCopy, error) {
	if a < ondisk.FixedBlocks || a >= v.sb.NumBlocks {
		return nil, fmt.Errorf("piece copy address %d out of range: %w", a, ErrCorrupt)
	}
	if err := v.readRaw(a, v.buf); err != nil {
		return nil, err
	}
	c, err := ondisk.DecodePieceCopy(v.buf)
	if err != nil {
		return nil, fmt.Errorf("piece copy at block %d: %w", a, err)
	}
	if c.UUID != v.sb.UUID || c.Piece != p || c.Seq != seq {
		return nil, fmt.Errorf("block %d holds a copy of piece %d seq %d of volume %v, want piece %d seq %d: %w", a, c.Piece, c.Seq, c.UUID, p, seq, ErrCorrupt)
	}
	return c, nil
}

// lostCopy is a piece copy recovery found damaged beside a good one.
type lostCopy struct {
	piece uint32
	addr  Addr
}

// loadCopies reads the copies a directory entry names and returns the
// payload of a good one; the damaged ones (beside a good one) go to
// v.lostCopies, for recover to drop once the digest is checked.
func (v *Volume) loadCopies(ck *ondisk.Checkpoint, de ondisk.DirEntry) ([]byte, error) {
	l := pieceLoc{ref: de.At, copies: true, pair: de.Pair}
	var payload []byte
	var bad []Addr
	var errs []error
	for _, a := range l.blocks() {
		c, err := v.readCopy(de.Piece, a, de.At.Seq)
		if err != nil {
			bad, errs = append(bad, a), append(errs, err)
			continue
		}
		if payload == nil {
			payload = c.Payload
		}
	}
	if payload == nil {
		return nil, fmt.Errorf("open: checkpoint %d: every copy of piece %d (seq %d) is damaged: %w: %v", ck.Seq, de.Piece, de.At.Seq, ErrCorrupt, errs)
	}
	for _, a := range bad {
		v.lostCopies = append(v.lostCopies, lostCopy{de.Piece, a})
	}
	return payload, nil
}

// dropLostCopies forgets the damaged copies loadCopies found: a piece
// still at that version keeps the good copy alone (a read-write Start
// writes two again); the damaged block stays pinned until the next
// checkpoint, which no longer names it. It runs after checkDigest, which
// compares the places the directory named.
func (v *Volume) dropLostCopies() {
	g := v.log
	for _, lc := range v.lostCopies {
		l, ok := g.cur[lc.piece]
		if !ok || !l.copies || (l.ref.Addr != lc.addr && l.pair != lc.addr) {
			continue // a newer version replaced it: the pair is pinned already
		}
		if l.ref.Addr == lc.addr {
			l.ref.Addr = l.pair
		}
		l.pair = 0
		g.setCur(lc.piece, l)
		g.pinned = append(g.pinned, lc.addr)
		v.recovery.PieceCopiesDamaged++
	}
	v.lostCopies = nil
}
