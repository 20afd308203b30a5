package compactor

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"

	"github.com/vlfs/vlfs/vld"
)

// Compactor empties fragmented tracks of a Target, step by step.
type Compactor struct {
	t   Target
	cfg Config
	rng *rand.Rand
	k   tracker

	src     int     // source track being emptied, or -1
	srcFree int32   // its free blocks when chosen
	pending []Block // its blocks still to move
	loaded  bool    // pending was prefetched
	// retried: a choice already came back empty for want of indexing
	// since the last index step that did any work.
	retried bool
	// unsettled counts blocks a Settler moved since its last commit;
	// settling lists the source tracks those moves left without a live
	// block, empty once the commit frees the old copies.
	unsettled int
	settling  []int
	listing   bool // the target lists extra log tracks (TrackLister)
	pred      predictor

	mu    sync.Mutex // guards stats
	stats Stats
}

// New returns a compactor for t.
func New(t Target, cfg Config) (*Compactor, error) {
	if d, ok := t.(SettleDefaulter); ok && cfg.SettleBlocks == 0 {
		cfg.SettleBlocks = d.DefaultSettleBlocks()
	}
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	return &Compactor{t: t, cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), src: -1}, nil
}

// Config is the configuration in force, defaults filled in.
func (c *Compactor) Config() Config { return c.cfg }

// Stats returns a snapshot of the counters.
func (c *Compactor) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *Compactor) update(f func(s *Stats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

// Step does one step of work: choosing a source track costs no simulated
// time; reading its live blocks is one step; moving StepBlocks of them is
// one step (durable at once, or for a Settler at the track's last step). It reports done when there is nothing to do: the
// target number of empty tracks is reached, no track can be emptied, or
// no hole is left to move blocks into. vld.ErrBusy means foreground
// requests are waiting: the caller should stop.
func (c *Compactor) Step() (done bool, err error) {
	if !c.listing {
		// From the first step on, not from New: with no idle time the
		// compactor never steps, and placement stays as without one.
		if l, ok := c.t.(TrackLister); ok {
			l.ListExtraLogTracks()
		}
		c.listing = true
	}
	if c.src < 0 {
		if worked, err := c.index(); worked || err != nil {
			return false, err
		}
		done, err := c.choose()
		if done && err == nil && c.unsettled > 0 {
			// Nothing more to move: commit what was moved, as a step of
			// its own, while the interval lasts.
			return false, c.settleStep()
		}
		if done || err != nil || c.src < 0 {
			return done, err
		}
	}
	t0 := c.t.NowMs()
	if !c.loaded {
		if err := c.t.Prefetch(c.pending); err != nil {
			return false, fmt.Errorf("compactor: reading track %d: %w", c.src, err)
		}
		c.loaded = true
		ms := c.t.NowMs() - t0
		c.pred.read.add(ms)
		c.update(func(s *Stats) { s.addStep(ms); s.ReadSteps++; s.ReadMs += ms })
		return false, nil
	}
	return c.moveStep(t0)
}

// index runs one index step of an Indexer target, if it has work waiting.
func (c *Compactor) index() (bool, error) {
	ix, ok := c.t.(Indexer)
	if !ok {
		return false, nil
	}
	t0 := c.t.NowMs()
	worked, err := ix.Index()
	if err != nil {
		return false, fmt.Errorf("compactor: indexing owners: %w", err)
	}
	if worked {
		c.retried = false
		ms := c.t.NowMs() - t0
		c.update(func(s *Stats) { s.addStep(ms); s.IndexSteps++; s.IndexMs += ms })
	}
	return worked, nil
}

// nextIsRead reports whether the next step reads a source track.
func (c *Compactor) nextIsRead() bool { return c.src < 0 || !c.loaded }

// nextSettles reports whether the next step is a move that commits: a
// Settler's last move of a source track with SettleBlocks moved, which
// writes every holder the moves since the last commit changed.
func (c *Compactor) nextSettles() bool {
	return c.src >= 0 && c.loaded && len(c.pending) <= c.cfg.StepBlocks && c.settles(len(c.pending))
}

// settles reports whether a move of n blocks, the last of its source
// track, commits.
func (c *Compactor) settles(n int) bool {
	if _, ok := c.t.(Settler); !ok || c.cfg.CommitEachStep {
		return false
	}
	return c.unsettled+n >= c.cfg.SettleBlocks
}

// mayStart reports whether a step may start elapsedMs into an idle
// interval, by Config.Start.
func (c *Compactor) mayStart(elapsedMs float64) bool {
	if c.cfg.Start == StartAlways {
		return true
	}
	kind := stepMove
	switch {
	case c.nextIsRead():
		kind = stepRead
	case c.nextSettles():
		kind = stepSettle
	}
	return c.pred.fits(elapsedMs, kind)
}

// choose picks the next source track and lists its blocks.
func (c *Compactor) choose() (done bool, err error) {
	c.k.look(c.t, c.t.NowMs())
	target := c.cfg.targetTracks(len(c.k.space))
	c.update(func(s *Stats) { s.EmptyTracks, s.TargetTracks = c.k.empty, target })
	if c.k.empty >= target {
		c.update(func(s *Stats) { s.Stuck = "" })
		return true, nil
	}
	unindexed := false
	for _, t := range c.k.order(c.cfg.Policy, c.rng) {
		live, pinned, err := c.t.Live(t)
		if errors.Is(err, ErrNotIndexed) {
			// The target indexes its owners in the next step; the track
			// stays a candidate.
			unindexed = true
			c.update(func(s *Stats) { s.TracksSkipped++ })
			continue
		}
		if err != nil {
			return false, fmt.Errorf("compactor: listing track %d: %w", t, err)
		}
		if pinned > 0 || len(live) == 0 {
			c.k.blocked[t] = c.k.space[t].Free
			c.update(func(s *Stats) { s.TracksSkipped++ })
			continue
		}
		c.src, c.srcFree, c.pending, c.loaded = t, c.k.space[t].Free, live, false
		return false, nil
	}
	if unindexed && !c.retried {
		// Not done: the next step indexes, then chooses again (once,
		// unless the index step finds more to do).
		c.retried = true
		return false, nil
	}
	why := "every candidate holds blocks being written or not yet committed"
	if n := len(c.k.holeless); n > 0 {
		why = fmt.Sprintf("%d candidates have no hole left on a fuller track, the rest hold blocks being written or not yet committed", n)
	}
	c.update(func(s *Stats) {
		s.Stuck = fmt.Sprintf("no track it can empty (%d of %d empty tracks): %s", c.k.empty, target, why)
	})
	return true, nil
}

// moveStep relocates the next StepBlocks blocks of the source track.
func (c *Compactor) moveStep(t0 float64) (bool, error) {
	n := min(len(c.pending), c.cfg.StepBlocks)
	o := vld.HoleOpts{Avoid: c.src}
	if c.cfg.Policy == CostBenefit {
		// Never fill a track that is a better source than this one.
		o.MaxFree = c.srcFree
	}
	last := n == len(c.pending)
	settles := last && c.settles(n)
	moved, err := c.move(c.pending[:n], o, last)
	ms := c.t.NowMs() - t0
	switch {
	case settles:
		c.pred.settle.add(ms)
	case moved > 0:
		c.pred.move.add(ms)
	}
	switch {
	case errors.Is(err, vld.ErrNoSpace):
		src, free := c.src, c.srcFree
		c.src, c.pending = -1, nil
		if err := c.settleMoves(); err != nil {
			return false, err
		}
		ms = c.t.NowMs() - t0
		if o.MaxFree > 0 {
			// No hole on a track at least as full as this source, which
			// cost-benefit will not fill: the source waits until its free
			// count changes, and others may still be emptied (stopping
			// here said "too full" with most of the disk free).
			c.k.blocked[src], c.k.holeless[src] = free, true
			c.update(func(s *Stats) { s.addStep(ms); s.BlocksMoved += int64(moved); s.TracksSkipped++; s.NoHoles++ })
			return false, nil
		}
		c.update(func(s *Stats) {
			s.addStep(ms)
			s.NoHoles++
			s.Stuck = fmt.Sprintf("no hole left to move blocks into (%d of %d empty tracks): the disk is too full to compact", c.k.empty, c.cfg.targetTracks(len(c.k.space)))
		})
		return true, nil
	case err != nil:
		return false, fmt.Errorf("compactor: moving blocks of track %d: %w", c.src, err)
	}
	c.pending = c.pending[n:]
	c.update(func(s *Stats) { s.addStep(ms); s.BlocksMoved += int64(moved) })
	if len(c.pending) == 0 {
		return false, c.finishTrack()
	}
	return false, nil
}

// move relocates bs with Move, or with a Settler's MoveLater unless bs is
// the source track's last step and SettleBlocks have moved (then Move
// commits every move before it).
func (c *Compactor) move(bs []Block, o vld.HoleOpts, last bool) (int, error) {
	if st, ok := c.t.(Settler); ok && !c.cfg.CommitEachStep && !(last && c.settles(len(bs))) {
		n, err := st.MoveLater(bs, o)
		c.unsettled += n
		return n, err
	}
	n, err := c.t.Move(bs, o)
	if err != nil {
		return n, err // the deferred moves stay pending
	}
	c.unsettled = 0
	return n, c.countSettled()
}

// settleStep commits the moves a Settler left pending, as a step.
func (c *Compactor) settleStep() error {
	t0 := c.t.NowMs()
	if err := c.settleMoves(); err != nil {
		return err
	}
	ms := c.t.NowMs() - t0
	c.pred.settle.add(ms)
	c.update(func(s *Stats) { s.addStep(ms) })
	return nil
}

// settleMoves commits moves a Settler target left pending: when a source
// track is given up before its last step, or nothing is left to move.
func (c *Compactor) settleMoves() error {
	c.unsettled = 0
	if st, ok := c.t.(Settler); ok && !c.cfg.CommitEachStep {
		if err := st.Settle(); err != nil {
			return fmt.Errorf("compactor: committing moves: %w", err)
		}
	}
	return c.countSettled()
}

// countSettled counts the tracks in settling that the commit just made
// empty.
func (c *Compactor) countSettled() error {
	ts := c.settling
	c.settling = nil
	for _, t := range ts {
		live, pinned, err := c.t.Live(t)
		if err != nil && !errors.Is(err, ErrNotIndexed) {
			return fmt.Errorf("compactor: %w", err)
		}
		if err == nil && len(live) == 0 && pinned == 0 {
			c.update(func(s *Stats) { s.TracksEmptied++ })
		}
	}
	return nil
}

// finishTrack counts the source track if it is now empty: foreground
// writes may have put new blocks on it meanwhile, and then it is simply
// chosen again later.
func (c *Compactor) finishTrack() error {
	src := c.src
	live, pinned, err := c.t.Live(src)
	c.src, c.pending = -1, nil
	if err != nil {
		return fmt.Errorf("compactor: %w", err)
	}
	switch {
	case len(live) == 0 && pinned == 0:
		c.update(func(s *Stats) { s.TracksEmptied++; s.Stuck = "" })
	case len(live) == 0 && c.unsettled > 0:
		// The old copies of its moved blocks are freed by the commit.
		c.settling = append(c.settling, src)
	}
	return nil
}
