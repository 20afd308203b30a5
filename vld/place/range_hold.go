package place

import (
	"slices"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Growth rooms (docs/ranges.md): a file appended over many fsyncs stays
// sequential only if the blocks after its last chain are still free when
// the next append comes, but everything else the volume writes meanwhile
// (the commit's inode blocks and log entries, other files) would be placed
// near the head, which is exactly there. So range placement remembers the
// ends of the last rangeTailsKept chains it wrote and, while placing any
// other write, holds the track's worth of blocks after each (marks them
// used for the duration of the placement only): ext2's preallocation
// window, which the range-writes paper keeps (section 5). Nothing is
// persisted and no space is lost: a placement that finds no room with the
// holds in force is retried without them.

// rangeTailsKept is how many chain ends range placement remembers.
const rangeTailsKept = 32

// rangeTails are the first blocks after recently written chains, oldest
// first.
type rangeTails struct {
	ends []int64
}

// note records a chain run [start, end): the room after start (the chain
// it continues) moves to end.
func (r *rangeTails) note(start, end int64) {
	r.ends = slices.DeleteFunc(r.ends, func(e int64) bool { return e == start || e == end })
	if len(r.ends) >= rangeTailsKept {
		r.ends = slices.Delete(r.ends, 0, len(r.ends)-rangeTailsKept+1)
	}
	r.ends = append(r.ends, end)
}

// holdRooms marks the free blocks of every growth room used, except the
// room starting at own (the chain being placed continues there; 0 for
// none), and returns the function that frees them again.
func (p *Range) holdRooms(own int64) func() {
	a := p.d.Alloc
	room := int64(p.d.MaxTrack)
	nb := p.d.blocks()
	var held []int64
	for _, e := range p.tails.ends {
		if e == own {
			continue
		}
		for b := max(e, ondisk.FixedBlocks); b < min(e+room, nb); b++ {
			if a.MarkUsed(b) {
				held = append(held, b)
			}
		}
	}
	return func() {
		active := a.Active()
		for _, b := range held {
			a.MarkFree(b)
		}
		if a.Active() < 0 {
			// Emptying a held track may have reset the active track;
			// the hold must leave the allocator as it found it.
			a.SetActive(active)
		}
	}
}
