package compactor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// Think is idle time on the virtual clock: the workload thinks for ms
// simulated milliseconds before its next request, and the compactor may
// use that time. Once no request has come for IdleDelayMs, it does steps
// until the think time is over; it cannot know when the next request
// comes, so the step in flight then finishes first. Think returns how long
// that next request has to wait for it (0 if the compactor had stopped in
// time): the interference, also counted in Stats. Afterwards the target's
// clock stands at the request's arrival time plus that wait.
func (c *Compactor) Think(ms float64) (waitMs float64, err error) {
	if !(ms > 0) {
		return 0, nil
	}
	start := c.t.NowMs()
	deadline := start + ms
	if ms <= c.cfg.IdleDelayMs {
		c.pred.idle.add(ms)
		c.t.Idle(ms)
		return 0, nil
	}
	c.t.Idle(c.cfg.IdleDelayMs)
	if err := c.relist(); err != nil {
		return c.settle(deadline, false), err
	}
	worked, idleSteps := false, 0
	for now := c.t.NowMs(); now < deadline && idleSteps < 3 && c.mayStart(now-start); now = c.t.NowMs() {
		done, err := c.Step()
		if err != nil {
			return c.settle(deadline, worked), err
		}
		if done {
			break
		}
		// Steps that cost no time (all their blocks gone meanwhile) are
		// fine, but a few in a row mean there is nothing to do now.
		if c.t.NowMs() > now {
			worked, idleSteps = true, 0
		} else {
			idleSteps++
		}
	}
	c.pred.idle.add(ms)
	return c.settle(deadline, worked), nil
}

// relist lists again the source track a past idle interval left half
// done: the foreground has run since, and the blocks listed then may have
// been rewritten elsewhere. Moving them would find nothing to move, at no
// cost, and Think takes a few such steps in a row to mean that there is
// nothing to do: a whole idle interval was lost that way (docs/compactor.md,
// "Commit every 32 moves, relist stale sources, ..."). An unchanged list
// keeps what was read. Pinned blocks do not matter here: the old copies
// of the track's own deferred moves are pinned until their commit.
func (c *Compactor) relist() error {
	if c.src < 0 {
		return nil
	}
	live, _, err := c.t.Live(c.src)
	switch {
	case errors.Is(err, ErrNotIndexed):
		c.src, c.pending = -1, nil // chosen again once indexed
	case err != nil:
		return fmt.Errorf("compactor: listing track %d: %w", c.src, err)
	case len(live) == 0:
		return c.finishTrack() // nothing left to move: as at its last step
	case !slices.Equal(live, c.pending):
		c.pending, c.loaded = live, false
	}
	return nil
}

// settle lets the rest of the think time pass, or reports how far the
// last step ran past it.
func (c *Compactor) settle(deadline float64, worked bool) float64 {
	now := c.t.NowMs()
	if worked {
		c.update(func(s *Stats) { s.IdleIntervals++ })
	}
	if now < deadline {
		c.t.Idle(deadline - now)
		return 0
	}
	wait := now - deadline
	c.update(func(s *Stats) { s.addWait(wait) })
	return wait
}

// Run compacts in the background on the real clock until ctx is done: it
// works whenever no foreground request has arrived for IdleDelayMs of wall
// time, one step at a time, and checks for new requests after every step.
// A request that arrives during a step waits for it (the target serialises
// them); that wait is counted as interference. While enough tracks are
// empty (and no index look-up waits) it only checks their count, in O(1);
// when a step found nothing to do, the next full look at every track
// waits twice as long as the last, up to 100 ms, until a request comes: an
// idle mount must not spend a core sorting every track each millisecond.
// A Waker target lets it sleep while idle (waking at a request, or after
// the same back-off: write-outs change free space without one); others
// are polled every IdleDelayMs (at least 1 ms).
func (c *Compactor) Run(ctx context.Context) error {
	fg, ok := c.t.(Foreground)
	if !ok {
		return ErrNoForeground
	}
	delay := time.Duration(c.cfg.IdleDelayMs * float64(time.Millisecond))
	poll := min(max(delay, time.Millisecond), maxPoll)
	seen, _ := fg.Activity()
	quietSince := time.Now()
	inInterval, worked := false, false
	// After a step that found nothing to do, no full look before nextLook;
	// lookWait is the next back-off.
	var nextLook time.Time
	lookWait := poll
	// rest waits while there is nothing to do: a poll interval, or for a
	// Waker target until a request comes or a back-off passes.
	var wake <-chan struct{}
	if w, ok := c.t.(Waker); ok {
		wake = w.Wake()
	}
	restWait := poll
	rest := func() {
		if wake == nil {
			sleep(ctx, poll)
			return
		}
		t := time.NewTimer(restWait)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-wake:
		}
		restWait = min(2*restWait, maxPoll)
	}
	// ended records the idle interval the request at last ended.
	ended := func(n uint64, last time.Time) {
		if inInterval {
			c.pred.idle.add(msBetween(quietSince, last))
		}
		seen, quietSince, inInterval, worked = n, time.Now(), false, false
		nextLook, lookWait, restWait = time.Time{}, poll, poll
	}
	for ctx.Err() == nil {
		if n, last := fg.Activity(); n != seen {
			ended(n, last)
		}
		if wait := delay - time.Since(quietSince); wait > 0 {
			sleep(ctx, wait)
			continue
		}
		inInterval = true
		if time.Now().Before(nextLook) || c.satisfied() || !c.mayStart(msBetween(quietSince, time.Now())) {
			rest()
			continue
		}
		if !worked {
			worked = true
			c.update(func(s *Stats) { s.IdleIntervals++ })
		}
		done, err := c.Step()
		if n, last := fg.Activity(); n != seen {
			// A request arrived during the step and waited for it.
			c.update(func(s *Stats) { s.addWait(msBetween(last, time.Now())) })
			ended(n, last)
		}
		switch {
		case errors.Is(err, vld.ErrBusy):
			quietSince = time.Now()
		case err != nil:
			return fmt.Errorf("compactor: background run: %w", err)
		case done:
			nextLook = time.Now().Add(lookWait)
			lookWait = min(2*lookWait, maxPoll)
		}
	}
	return nil
}

// maxPoll bounds the real-clock loop's poll interval and its back-off
// between full looks.
const maxPoll = 100 * time.Millisecond

// satisfied reports, in O(1), that no step is needed now: no source track
// is being worked on, no index look-up waits and enough tracks are empty.
func (c *Compactor) satisfied() bool {
	if c.src >= 0 || c.unsettled > 0 {
		return false
	}
	if ix, ok := c.t.(Indexer); ok && ix.IndexPending() {
		return false
	}
	empty, tracks := c.t.EmptyCount()
	target := c.cfg.targetTracks(tracks)
	c.update(func(s *Stats) { s.EmptyTracks, s.TargetTracks = empty, target })
	return empty >= target
}

func msBetween(a, b time.Time) float64 { return float64(b.Sub(a)) / float64(time.Millisecond) }

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
