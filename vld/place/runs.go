package place

import (
	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// addrRuns groups consecutive addresses into runs, in order.
func addrRuns(addrs []int64) []Run {
	var runs []Run
	for _, b := range addrs {
		if k := len(runs) - 1; k >= 0 && runs[k].Start+int64(runs[k].N) == b {
			runs[k].N++
			continue
		}
		runs = append(runs, Run{Start: b, N: 1})
	}
	return runs
}

// freeRuns marks the blocks of runs free again, in order: the undo of a
// placement that failed part way.
func freeRuns(a *alloc.Allocator, runs []Run) {
	for _, r := range runs {
		for i := range r.N {
			a.MarkFree(r.Start + int64(i))
		}
	}
}

// firstFree returns the first free block at or after from in address
// order, wrapping once, inside window w; -1 if there is none.
func (d Disk) firstFree(from int64, w alloc.Window) int64 {
	nb := d.blocks()
	from = min(max(from, ondisk.FixedBlocks), nb-1)
	for _, span := range [][2]int64{{from, nb}, {ondisk.FixedBlocks, from}} {
		for b := span[0]; b < span[1]; {
			b = d.Alloc.NextFree(b, span[1])
			if b < 0 {
				break
			}
			t := d.Layout.TrackOf(b)
			if w.Contains(t, d.Layout.NumTracks()) {
				return b
			}
			b = d.Layout.TrackStart(t) + int64(d.Layout.TrackBlocks(t))
		}
	}
	return -1
}
