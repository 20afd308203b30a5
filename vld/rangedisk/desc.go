package rangedisk

import (
	"fmt"
	"math/bits"
	"slices"
)

// Extent is the half-open block interval [Begin, End).
type Extent struct{ Begin, End int64 }

// Len is the number of blocks in e.
func (e Extent) Len() int64 { return e.End - e.Begin }

// Desc is a range descriptor: where a range write may land. It has one of
// two equivalent forms (section 3.1.1 of the paper):
//   - a list of ranges (Ranges non-empty; Free nil); they may overlap;
//   - one range [Begin, End) plus a bitmap of its free blocks (Free
//     non-nil): bit i (word i/64, bit i%64) set means block Begin+i may be
//     written.
//
// A multi-block write lands on consecutive blocks that are all inside one
// range (all free in the bitmap), in the order given.
type Desc struct {
	Ranges     []Extent
	Begin, End int64
	Free       []uint64
}

// List is the list-of-ranges descriptor.
func List(r ...Extent) Desc { return Desc{Ranges: r} }

// Span is the descriptor of one range [begin, end).
func Span(begin, end int64) Desc { return List(Extent{begin, end}) }

// Bitmap is the begin/end-plus-bitmap descriptor.
func Bitmap(begin, end int64, free []uint64) Desc {
	return Desc{Begin: begin, End: end, Free: free}
}

// Runs validates d for a write of n blocks aligned to align on a disk of
// numBlocks blocks, and returns its targets as sorted, disjoint, non-adjacent
// extents of writable blocks (runs shorter than n are kept: reservations are
// checked later, block by block). Choose and Submit validate a descriptor
// this way; a caller may too, before it submits one.
func (d Desc) Runs(numBlocks int64, n int, align int) ([]Extent, error) {
	var rs []Extent
	var err error
	switch {
	case d.Free != nil && len(d.Ranges) == 0:
		rs, err = d.bitmapRuns(numBlocks)
	case d.Free == nil && len(d.Ranges) > 0:
		rs, err = listRuns(d.Ranges, numBlocks)
	default:
		err = fmt.Errorf("%w: a descriptor needs either ranges or a bitmap, not %d ranges and a bitmap of %d words", ErrBadRange, len(d.Ranges), len(d.Free))
	}
	if err != nil {
		return nil, err
	}
	if !fits(rs, n, align) {
		return nil, fmt.Errorf("%w: %d blocks aligned to %d fit in none of %d free runs", ErrTooLarge, n, align, len(rs))
	}
	return rs, nil
}

// checkExtent rejects empty, inverted and out-of-disk ranges.
func checkExtent(e Extent, numBlocks int64) error {
	if e.Begin < 0 || e.End > numBlocks {
		return fmt.Errorf("%w: [%d, %d) is outside the disk's %d blocks", ErrBadRange, e.Begin, e.End, numBlocks)
	}
	if e.End <= e.Begin {
		return fmt.Errorf("%w: [%d, %d) is empty or inverted", ErrBadRange, e.Begin, e.End)
	}
	return nil
}

// listRuns validates a list of ranges and merges it.
func listRuns(in []Extent, numBlocks int64) ([]Extent, error) {
	for i, e := range in {
		if err := checkExtent(e, numBlocks); err != nil {
			return nil, fmt.Errorf("range %d: %w", i, err)
		}
	}
	rs := slices.Clone(in)
	slices.SortFunc(rs, func(a, b Extent) int { return cmpInt64(a.Begin, b.Begin) })
	out := rs[:1]
	for _, e := range rs[1:] {
		last := &out[len(out)-1]
		if e.Begin <= last.End {
			last.End = max(last.End, e.End)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// bitmapRuns validates the bitmap form and turns its set bits into runs.
// The bitmap's length is checked against the range before any bit is read.
func (d Desc) bitmapRuns(numBlocks int64) ([]Extent, error) {
	e := Extent{d.Begin, d.End}
	if err := checkExtent(e, numBlocks); err != nil {
		return nil, err
	}
	if need := (e.Len() + 63) / 64; int64(len(d.Free)) < need {
		return nil, fmt.Errorf("%w: bitmap of %d words for a %d-block range (need %d)", ErrBadRange, len(d.Free), e.Len(), need)
	}
	var out []Extent
	for i := int64(0); i < e.Len(); {
		w := d.Free[i/64] >> uint(i%64)
		if w == 0 { // skip the rest of a word of used blocks
			i += 64 - i%64
			continue
		}
		i += int64(bits.TrailingZeros64(w))
		if i >= e.Len() {
			break
		}
		j := i
		for j < e.Len() && d.Free[j/64]&(1<<uint(j%64)) != 0 {
			j++
		}
		out = append(out, Extent{d.Begin + i, d.Begin + j})
		i = j
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: bitmap of [%d, %d) has no free block", ErrBadRange, d.Begin, d.End)
	}
	return out, nil
}

// fits reports whether an aligned run of n blocks fits in some extent.
// It compares n with the room left rather than adding n to a block
// number: a huge n would overflow the sum into a "fit", and the write
// would be queued (under ECS, expanded without end) instead of refused.
func fits(rs []Extent, n, align int) bool {
	for _, e := range rs {
		if int64(n) <= e.End-alignUp(e.Begin, align) {
			return true
		}
	}
	return false
}

// checkAlign accepts 0 (meaning 1) and positive powers of two.
func checkAlign(align int) (int, error) {
	if align == 0 {
		return 1, nil
	}
	if align < 0 || align&(align-1) != 0 {
		return 0, fmt.Errorf("%w: %d blocks", ErrBadAlign, align)
	}
	return align, nil
}

// alignUp rounds b up to a multiple of align (a power of two).
func alignUp(b int64, align int) int64 { a := int64(align); return (b + a - 1) &^ (a - 1) }

// alignDown rounds b down to a multiple of align (a power of two).
func alignDown(b int64, align int) int64 { return b &^ (int64(align) - 1) }

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
