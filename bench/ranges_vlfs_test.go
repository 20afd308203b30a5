package bench

import "testing"

// TestRangesVLFSSequential: files appended through vlfs in alternating
// fsynced chunks read back with at most half the device requests and
// simulated time under range placement as under eager placement.
func TestRangesVLFSSequential(t *testing.T) {
	rep := rangesRun(t, "vlfs")
	eager := rangesMean(t, rep, map[string]any{"figure": "vlfs", "placement": "eager"})
	ranged := rangesMean(t, rep, map[string]any{"figure": "vlfs", "placement": "range"})
	t.Logf("eager %v\nrange %v", eager, ranged)
	if ranged["read_requests"].(int64)*2 > eager["read_requests"].(int64) || ranged["read_ms"].(float64)*2 > eager["read_ms"].(float64) {
		t.Errorf("read-back: range %d requests %.1f ms, eager %d requests %.1f ms", ranged["read_requests"], ranged["read_ms"], eager["read_requests"], eager["read_ms"])
	}
}
