package vld

import "github.com/vlfs/vlfs/vld/place"

// What a volume on PlaceLFS says of its log (vld/place/lfs.go): its
// counters, and for the segment cleaner of a logical disk
// (vld/logical/lfs_clean.go), which must not see the volume's lock, its
// allocator or its pending frees, the segments and what they hold.

// LFSStats reports the log's counters; zero unless the volume is PlaceLFS.
func (v *Volume) LFSStats() place.LFSStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.lfs == nil {
		return place.LFSStats{}
	}
	return v.place.lfs.Stats()
}

// LFSSegmentCount reports how many segments are clean (the current one
// excluded) and how many there are; 0, 0 unless the volume is PlaceLFS.
func (v *Volume) LFSSegmentCount() (clean, total int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.lfs == nil {
		return 0, 0
	}
	return v.place.lfs.CleanCount(), v.place.lfs.Segments()
}

// LFSSegmentBlocks is the size of a segment in blocks; 0 unless the
// volume is PlaceLFS.
func (v *Volume) LFSSegmentBlocks() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.lfs == nil {
		return 0
	}
	return v.place.lfs.SegmentBlocks()
}

// LFSSegment is a segment of the log that a cleaner may empty.
type LFSSegment struct {
	Index int64
	AgeMs float64 // simulated time since the segment was opened
	Used  []Addr  // its blocks in use, in address order
}

// LFSSegments lists, in address order, the segments a cleaner may empty
// now: whole (not the short last one), not the one being filled, not
// clean, and holding no block freed since the last commit (Free releases
// it only with the next one). Whether every block in Used is the
// client's, and so can be moved, is for the client to say. Nil unless the
// volume is PlaceLFS.
func (v *Volume) LFSSegments() []LFSSegment {
	v.mu.Lock()
	defer v.mu.Unlock()
	l := v.place.lfs
	if l == nil {
		return nil
	}
	var out []LFSSegment
	for s := int64(0); s < l.Segments(); s++ {
		if s == l.Current() {
			continue
		}
		lo, hi := l.Bounds(s)
		if hi-lo != l.SegmentBlocks() || l.Clean(s) {
			continue
		}
		seg := LFSSegment{Index: s, AgeMs: v.m.now - l.OpenedMs(s)}
		pinned := false
		for b := v.alloc.NextUsed(lo, hi); b >= 0 && !pinned; b = v.alloc.NextUsed(b+1, hi) {
			pinned = v.pending[Addr(b)]
			seg.Used = append(seg.Used, Addr(b))
		}
		if !pinned {
			out = append(out, seg)
		}
	}
	return out
}
