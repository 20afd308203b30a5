package compactor

// Stats are a compactor's counters. Times are simulated milliseconds on
// the target's clock (which follows the wall clock in real-time mode).
type Stats struct {
	Steps         int64 // read and move steps done
	ReadSteps     int64 // reads of a source track's live blocks
	BlocksMoved   int64
	TracksEmptied int64   // source tracks left empty by the compactor
	TracksSkipped int64   // candidates passed over: pinned blocks, or emptied meanwhile
	NoHoles       int64   // moves refused because no hole was left
	WorkMs        float64 // time spent in steps
	ReadMs        float64 // the part of WorkMs spent reading source tracks
	MaxStepMs     float64 // the longest step
	IndexSteps    int64   // look-ups of block owners (Indexer targets)
	IndexMs       float64 // the part of WorkMs spent in them

	IdleIntervals int64 // idle intervals in which the compactor worked
	// Interference: an idle interval that ended while a step was in
	// flight made the next foreground request wait for that step.
	Interrupted       int64
	InterferenceMs    float64 // total wait
	MaxInterferenceMs float64

	EmptyTracks  int // at the last look
	TargetTracks int // the goal
	// Stuck says why the compactor stopped short of its target the last
	// time it ran out of work (no track it can empty, or no hole left to
	// move blocks into: a disk too full to compact); "" while it makes
	// progress or has reached the target. Issue 32: at 90-99 % a user must
	// be told when the compactor cannot help.
	Stuck string
}

func (s *Stats) addStep(ms float64) {
	s.Steps++
	s.WorkMs += ms
	s.MaxStepMs = max(s.MaxStepMs, ms)
}

func (s *Stats) addWait(ms float64) {
	if ms <= 0 {
		return
	}
	s.Interrupted++
	s.InterferenceMs += ms
	s.MaxInterferenceMs = max(s.MaxInterferenceMs, ms)
}
