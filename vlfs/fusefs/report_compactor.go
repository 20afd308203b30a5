package fusefs

import (
	"fmt"
	"io"

	"github.com/vlfs/vlfs/compactor"
)

// CompactorReport is the background compactor's part of the report
// (docs/compactor.md). Times are simulated ms on the volume's clock.
type CompactorReport struct {
	BlocksMoved       int64   `json:"blocks_moved"`
	TracksEmptied     int64   `json:"tracks_emptied"`
	EmptyTracks       int     `json:"empty_tracks"`  // at its last look
	TargetTracks      int     `json:"target_tracks"` // where it stops
	Steps             int64   `json:"steps"`
	WorkMs            float64 `json:"work_sim_ms"` // time used
	ReadMs            float64 `json:"read_sim_ms"`
	IndexMs           float64 `json:"index_sim_ms"`
	MaxStepMs         float64 `json:"max_step_sim_ms"`
	IdleIntervals     int64   `json:"idle_intervals"`
	Interrupted       int64   `json:"interrupted"` // requests that waited for a step in flight
	InterferenceMs    float64 `json:"interference_wall_ms"`
	MaxInterferenceMs float64 `json:"max_interference_wall_ms"`
	NoHoles           int64   `json:"no_holes"`       // moves refused: no hole left
	TracksSkipped     int64   `json:"tracks_skipped"` // candidates passed over
	// Stuck: why it last stopped short of its target ("" = it has not)
	Stuck string `json:"stuck,omitempty"`
}

func compactorReport(s *compactor.Stats) *CompactorReport {
	if s == nil {
		return nil
	}
	return &CompactorReport{
		BlocksMoved: s.BlocksMoved, TracksEmptied: s.TracksEmptied, EmptyTracks: s.EmptyTracks, TargetTracks: s.TargetTracks,
		Steps: s.Steps, WorkMs: s.WorkMs, ReadMs: s.ReadMs, IndexMs: s.IndexMs, MaxStepMs: s.MaxStepMs,
		IdleIntervals: s.IdleIntervals, Interrupted: s.Interrupted,
		InterferenceMs: s.InterferenceMs, MaxInterferenceMs: s.MaxInterferenceMs,
		NoHoles: s.NoHoles, TracksSkipped: s.TracksSkipped, Stuck: s.Stuck,
	}
}

func (r Report) textCompactor(w io.Writer) {
	c := r.Compactor
	switch {
	case c == nil && r.Source == "mount":
		fmt.Fprintf(w, "compactor\toff\n")
		return
	case c == nil:
		fmt.Fprintf(w, "compactor\tnot running (an image, not a mount)\n")
		return
	}
	fmt.Fprintf(w, "compactor\ton\n")
	fmt.Fprintf(w, "  blocks moved\t%d\n", c.BlocksMoved)
	fmt.Fprintf(w, "  tracks emptied\t%d\t(empty now %d, target %d)\n", c.TracksEmptied, c.EmptyTracks, c.TargetTracks)
	fmt.Fprintf(w, "  time used\t%.1f ms simulated\t(%d steps, longest %.1f ms; reading %.1f ms, indexing %.1f ms)\n", c.WorkMs, c.Steps, c.MaxStepMs, c.ReadMs, c.IndexMs)
	fmt.Fprintf(w, "  interference\t%d requests waited\t(%.1f ms wall in all, at most %.1f ms)\n", c.Interrupted, c.InterferenceMs, c.MaxInterferenceMs)
	if c.Stuck != "" {
		fmt.Fprintf(w, "  stuck\t%s\t(%d moves found no hole, %d tracks skipped)\n", c.Stuck, c.NoHoles, c.TracksSkipped)
	}
}
