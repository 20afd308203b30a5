package bench

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/disk"
)

// rangesNotes explains the setup and states the headline comparisons as
// measured (computed from the rows, never assumed).
func rangesNotes(l *disk.Layout, rows []map[string]any) []string {
	notes := []string{
		fmt.Sprintf("blocks are 512-byte sectors; the group span is blocks 0-%d (outer zone, %d blocks a track); writes and reads are %s", RangesGroupBlocks-1, l.TrackBlocks(0), "one request each, closed loop with no think time"),
		"the disk picks its next request when the previous one completes, before the host's reply arrives, so a queue of Q offers Q-1 choices in steady state (the paper's reason why Q=2 is no better than Q=1)",
		"range_blocks=1 with choices=1 is a classic exact-address write (Figure 4); seek_ms includes head switches and write settle",
		"w_ec = S*Q and w_hr = ceil(S/T)*Q with S = choices*range_blocks and T the blocks per track; estimates_per_decision counts full seek+rotation estimates made by the decision that chose each request",
	}
	if n := headline(rows); n != "" {
		notes = append(notes, n)
	}
	if slices.ContainsFunc(rows, func(r map[string]any) bool { return r["figure"] == "vlfs" }) {
		notes = append(notes, fmt.Sprintf("figure vlfs runs the file system on a %d MiB image of the disk with 4096-byte blocks: two files appended in alternating fsynced chunks of chunk_blocks (random think time up to a revolution), then the first read back after a remount; mean_ms is per fsynced append, read_requests and read_ms are the read-back's device requests and simulated time", rangesVLFSImage>>20))
	}
	return notes
}

// headline compares section 4.4.2's endpoints when both rows were run.
func headline(rows []map[string]any) string {
	find := func(rb, ch int) (float64, bool) {
		for _, r := range rows {
			if r["figure"] == "choices" && r["range_blocks"] == rb && r["choices"] == ch {
				return r["mean_ms"].(float64), true
			}
		}
		return 0, false
	}
	one, ok1 := find(1, 1)
	best, ok2 := find(RangesTrackRange, 64)
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("section 4.4.2 headline, Q=1, group span: one choice of one block %.2f ms, 64 choices of %d-block ranges %.2f ms: %.1fx (paper: over 12 ms vs about 4 ms)", one, RangesTrackRange, best, one/best)
}
