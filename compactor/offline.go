package compactor

// Progress is reported by Compact after every step.
type Progress struct {
	EmptyTracks  int // at the last look (refreshed when a source is chosen)
	TargetTracks int
	BlocksMoved  int64
	TracksDone   int64 // tracks emptied
	SimMs        float64
}

// Compact runs steps back to back, with no foreground to yield to, until
// there is nothing left to do (the target number of empty tracks is
// reached, or no more can be made). progress, if not nil, is called after
// every step.
func (c *Compactor) Compact(progress func(Progress)) error {
	start := c.t.NowMs()
	for {
		done, err := c.Step()
		if err != nil {
			return err
		}
		if progress != nil {
			s := c.Stats()
			progress(Progress{EmptyTracks: s.EmptyTracks, TargetTracks: s.TargetTracks, BlocksMoved: s.BlocksMoved, TracksDone: s.TracksEmptied, SimMs: c.t.NowMs() - start})
		}
		if done {
			return nil
		}
	}
}
