package vld

import "github.com/vlfs/vlfs/vld/place"

// What a volume on PlaceLFS says of its log (vld/place/lfs.go).

// LFSStats reports the log's counters; zero unless the volume is PlaceLFS.
func (v *Volume) LFSStats() place.LFSStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.lfs == nil {
		return place.LFSStats{}
	}
	return v.place.lfs.Stats()
}
