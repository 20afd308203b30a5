package diskfs

import "github.com/vlfs/vlfs/vld"

// Discard makes [off, off+n) read as zeros. With eager placement whole
// blocks are trimmed: unmapped, their physical blocks free once the next
// Sync is durable (a trim is ordered like a write: the durable state may
// still reference the old copy until then). Partial blocks at the ends are
// zero-filled by read-modify-write. With in-place placement every logical
// block keeps its home, so the range is overwritten with zeros instead:
// nothing is freed, and FreedCounts stays honest.
func (l *Logical) Discard(off, n int64) error {
	if off < 0 || n < 0 {
		return l.checkWrite(off, n)
	}
	if off >= l.size || n == 0 {
		return nil
	}
	n = min(n, l.size-off)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.discards++
	start, end := roundUp(off, l.bs), (off+n)/l.bs*l.bs
	if start >= end { // no whole block: within one block or across one boundary
		return l.zeroLocked(off, n)
	}
	if err := l.zeroLocked(off, start-off); err != nil {
		return err
	}
	if err := l.dropLocked(start/l.bs, (end-start)/l.bs); err != nil {
		return err
	}
	return l.zeroLocked(end, off+n-end)
}

func roundUp(x, m int64) int64 { return (x + m - 1) / m * m }

// zeroLocked zero-fills a range of less than two blocks' worth, block by
// block, skipping a block that is not mapped (it reads as zeros already).
func (l *Logical) zeroLocked(off, n int64) error {
	for n > 0 {
		c := min(n, l.bs-off%l.bs)
		if l.d.Placement() != vld.PlaceEager || l.d.Mapped(off/l.bs) != 0 {
			if err := l.writeLocked(make([]byte, c), off); err != nil {
				return err
			}
		}
		off, n = off+c, n-c
	}
	return nil
}

// dropLocked forgets n whole blocks from blk: a trim with eager placement,
// zero-filled homes in place.
func (l *Logical) dropLocked(blk, n int64) error {
	if l.d.Placement() == vld.PlaceEager {
		const chunk = 1 << 20 // Trim takes an int count
		for n > 0 {
			c := min(n, chunk)
			if err := l.d.Trim(blk, int(c)); err != nil {
				return err
			}
			blk, n = blk+c, n-c
		}
		return nil
	}
	zeros := make([]byte, maxRequestBlocks*l.bs)
	for n > 0 {
		c := min(n, maxRequestBlocks)
		if err := l.writeLocked(zeros[:c*l.bs], blk*l.bs); err != nil {
			return err
		}
		blk, n = blk+c, n-c
	}
	return nil
}
