package bench

import "github.com/vlfs/vlfs/vlfs/ondisk"

// Pointer depth in a vlfs inode. An update of a file block rewrites every
// indirect block on the path from the inode to it, so the empty-disk
// reference of the vlfs rows must update blocks at the depth the 80 % file's
// updates go to, or it leaves out one indirect block per update
// (docs/compactor.md, "The empty-disk reference"; TestIdleEmptyDepth).

// ptrDepth is how many indirect blocks lie between an inode and one of its
// blocks: 0 for a direct pointer, up to ondisk.NumIndirect.
type ptrDepth int

func (d ptrDepth) String() string {
	switch d {
	case 0:
		return "direct"
	case 1:
		return "single-indirect"
	case 2:
		return "double-indirect"
	case 3:
		return "triple-indirect"
	}
	return "depth-unknown"
}

// depthGeometry is a vlfs inode's block tree for one block size and
// layout (summed: file-system version 4's, with 8 direct pointers and
// fewer per indirect block).
type depthGeometry struct{ direct, per int64 } // direct pointers; addresses per indirect block

func newDepthGeometry(blockBytes int, summed bool) depthGeometry {
	return depthGeometry{direct: int64(ondisk.NumDirectFor(summed)), per: int64(ondisk.PerIndirectFor(blockBytes, summed))}
}

// span is how many logical blocks depth d covers.
func (g depthGeometry) span(d ptrDepth) int64 {
	if d == 0 {
		return g.direct
	}
	s := int64(1)
	for range d {
		s *= g.per
	}
	return s
}

// base is the first logical block at depth d.
func (g depthGeometry) base(d ptrDepth) int64 {
	b := int64(0)
	for i := ptrDepth(0); i < d; i++ {
		b += g.span(i)
	}
	return b
}

// depth is the pointer depth of logical block lbn.
func (g depthGeometry) depth(lbn int64) ptrDepth {
	d := ptrDepth(0)
	for ; d < ondisk.NumIndirect && lbn >= g.base(d)+g.span(d); d++ {
	}
	return d
}

// fileDepth is the depth holding the most blocks of a file of n blocks,
// [0, n): where most of its uniformly random updates go.
func (g depthGeometry) fileDepth(n int64) ptrDepth {
	best, most := ptrDepth(0), int64(-1)
	for d := ptrDepth(0); d <= ondisk.NumIndirect; d++ {
		lo, hi := g.base(d), min(g.base(d)+g.span(d), n)
		if hi-lo > most {
			best, most = d, hi-lo
		}
	}
	return best
}

// blockRange is the logical blocks [base, base+n) of a file that a point
// updates.
type blockRange struct{ base, n int64 }

// depthMatched is the range of n blocks the utilisation-0 rows update: at
// depth d, from its first block. (A depth whose span is shorter than n,
// only the direct pointers in practice, lets the range run into the next.)
func (g depthGeometry) depthMatched(d ptrDepth, n int64) blockRange {
	return blockRange{base: g.base(d), n: n}
}

// depthCount counts updates by the depth of the block they rewrite.
type depthCount [ondisk.NumIndirect + 1]int

func (c *depthCount) add(g depthGeometry, lbn int64) { c[g.depth(lbn)]++ }

// most is the depth most updates went to.
func (c *depthCount) most() ptrDepth {
	best := ptrDepth(0)
	for d := range c {
		if c[d] > c[best] {
			best = ptrDepth(d)
		}
	}
	return best
}
