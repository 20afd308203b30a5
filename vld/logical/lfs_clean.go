package logical

import (
	"fmt"
	"sort"

	"github.com/vlfs/vlfs/vld"
)

// The segment cleaner of a logical disk on PlaceLFS: the MIT Logical
// Disk's cleaner as the virtual-log paper modified it (section 4.4), run
// when clean segments run low and, through CleanIdle, during idle time.
// Cleaning a segment reads its live blocks (one request spanning them),
// appends them to the log, remaps them and commits: the old copies are
// freed only by that commit, once the new map is durable, so a crash
// during cleaning loses nothing (the same argument as Relocate's).
// Segments holding blocks the logical disk cannot move (the volume's log
// entries and checkpoint directory, blocks freed and not yet released) are
// not candidates.

// CleanPolicy chooses which segment the cleaner cleans next.
type CleanPolicy uint8

// Cleaning policies.
const (
	// CleanCostBenefit picks the segment with the largest
	// (1-u)*age/(1+u) (Rosenblum and Ousterhout): u is the fraction of
	// the segment still live, age the time since it was opened.
	CleanCostBenefit CleanPolicy = iota
	// CleanGreedy picks the least utilised segment.
	CleanGreedy
)

// ParseCleanPolicy reads "cost-benefit" or "greedy".
func ParseCleanPolicy(s string) (CleanPolicy, error) {
	switch s {
	case "cost-benefit", "":
		return CleanCostBenefit, nil
	case "greedy":
		return CleanGreedy, nil
	}
	return 0, fmt.Errorf("cleaning policy %q: want cost-benefit or greedy: %w", s, vld.ErrInvalid)
}

func (p CleanPolicy) String() string {
	if p == CleanGreedy {
		return "greedy"
	}
	return "cost-benefit"
}

// CleanerConfig tunes the segment cleaner. Zero fields take defaults.
type CleanerConfig struct {
	Policy CleanPolicy
	// LowSegments: a write that finds fewer clean segments than this
	// cleans first (default 4).
	LowSegments int
	// TargetSegments: on-demand cleaning stops at this many clean
	// segments (default 8).
	TargetSegments int
	// IdleMaxUtil: idle-time cleaning skips segments fuller than this
	// (default 0.9): moving a nearly full segment frees almost nothing.
	IdleMaxUtil float64
}

func (c CleanerConfig) withDefaults() CleanerConfig {
	if c.LowSegments <= 0 {
		c.LowSegments = 4
	}
	if c.TargetSegments < c.LowSegments {
		c.TargetSegments = 2 * c.LowSegments
	}
	if !(c.IdleMaxUtil > 0) || c.IdleMaxUtil > 1 {
		c.IdleMaxUtil = 0.9
	}
	return c
}

// CleanerStats count the cleaner's work since open.
type CleanerStats struct {
	SegmentsCleaned int64   // segments emptied
	BlocksMoved     int64   // live blocks copied to the log
	BlocksRead      int64   // blocks read to find them (spanning reads)
	DemandRuns      int64   // times a write found clean segments low
	IdleRuns        int64   // CleanIdle calls that cleaned something
	CleanMs         float64 // simulated time spent cleaning
	ClientBlocks    int64   // blocks the client wrote (for WriteCost)
}

// WriteCost is Rosenblum's write cost: blocks transferred (client writes,
// plus the cleaner's reads and writes) per block the client wrote; 1.0
// when the cleaner never ran, 0 before any write.
func (s CleanerStats) WriteCost() float64 {
	if s.ClientBlocks == 0 {
		return 0
	}
	return float64(s.ClientBlocks+s.BlocksRead+s.BlocksMoved) / float64(s.ClientBlocks)
}

// cleaner is a logical disk's cleaning state, guarded by Disk.mu.
type cleaner struct {
	cfg CleanerConfig
	st  CleanerStats
}

// segCand is a segment the cleaner could clean.
type segCand struct {
	seg   int64
	live  []Movable
	util  float64
	score float64
}

// SetCleaner sets the cleaner's configuration (a disk not on PlaceLFS
// ignores it).
func (d *Disk) SetCleaner(c CleanerConfig) {
	d.mu.Lock()
	d.cl.cfg = c.withDefaults()
	d.mu.Unlock()
}

// CleanerStats reports the cleaner's counters.
func (d *Disk) CleanerStats() CleanerStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cl.st
}

// CleanSegments reports how many segments are clean (current one excluded)
// and how many there are; 0, 0 unless the disk is on PlaceLFS.
func (d *Disk) CleanSegments() (clean, total int64) {
	if d.place != vld.PlaceLFS {
		return 0, 0
	}
	return d.v.LFSSegmentCount()
}

// noteClientLocked counts n blocks the client writes and cleans first if
// clean segments run low.
func (d *Disk) noteClientLocked(n int) error {
	if d.place != vld.PlaceLFS {
		return nil
	}
	d.cl.st.ClientBlocks += int64(n)
	clean, _ := d.CleanSegments()
	cfg := d.cl.cfg.withDefaults()
	if clean >= int64(cfg.LowSegments) {
		return nil
	}
	d.cl.st.DemandRuns++
	return d.cleanUntilLocked(int64(cfg.TargetSegments), 1, -1, cleanBatch)
}

// cleanBatch is the most segments one commit cleans: every commit writes
// the changed map pieces to the log, so cleaning several segments per
// commit spreads that cost (the Logical Disk writes its map with each
// segment; here it is a commit of the virtual log).
const cleanBatch = 8

// cleanUntilLocked cleans segments no fuller than maxUtil, at most batch
// per commit, until want are clean, no candidate is left, or (deadline >=
// 0) the clock passes deadline.
func (d *Disk) cleanUntilLocked(want int64, maxUtil, deadline float64, batch int64) error {
	_, total := d.CleanSegments()
	for i := int64(0); i < total; i++ {
		clean, _ := d.CleanSegments()
		if clean >= want {
			return nil
		}
		if deadline >= 0 && d.v.NowMs() >= deadline {
			return nil
		}
		cs, err := d.pickSegmentsLocked(maxUtil, clean, min(want-clean, batch))
		if err != nil || len(cs) == 0 {
			return err
		}
		if err := d.cleanSegmentsLocked(cs); err != nil {
			return err
		}
	}
	return nil
}

// pickSegmentsLocked chooses the next segments to clean by the policy:
// at most need (and cleanBatch) of them, whose live blocks fit in the
// clean segments there are but one. A commit first releases blocks freed
// since the last one, so that they do not pin their segments.
func (d *Disk) pickSegmentsLocked(maxUtil float64, clean, need int64) ([]segCand, error) {
	if err := d.commitDirtyLocked(); err != nil {
		return nil, err
	}
	cands := d.candidatesLocked(maxUtil)
	if len(cands) == 0 {
		return nil, nil
	}
	greedy := d.cl.cfg.Policy == CleanGreedy
	sort.SliceStable(cands, func(i, j int) bool {
		if greedy || cands[i].score == cands[j].score {
			return cands[i].util < cands[j].util
		}
		return cands[i].score > cands[j].score
	})
	seg := d.v.LFSSegmentBlocks()
	room := max(clean-1, 0) * seg
	out := cands[:1] // always one: the reserve takes it if need be
	moved := int64(len(cands[0].live))
	for _, c := range cands[1:] {
		if int64(len(out)) >= min(need, cleanBatch) || moved+int64(len(c.live)) > room {
			break
		}
		out = append(out, c)
		moved += int64(len(c.live))
	}
	return out, nil
}

// candidatesLocked lists the segments that can be cleaned now: those the
// volume offers (not the current one, not clean, no block freed and not
// yet released), every used block a live logical block, and at most
// maxUtil of it live.
func (d *Disk) candidatesLocked(maxUtil float64) []segCand {
	d.buildRevLocked()
	segBlocks := d.v.LFSSegmentBlocks()
	var out []segCand
	for _, s := range d.v.LFSSegments() {
		live := make([]Movable, 0, len(s.Used))
		for _, b := range s.Used {
			r := d.mv.rev[b]
			if r == 0 || d.m[r-1] != uint32(b) {
				break
			}
			live = append(live, Movable{Logical: int64(r - 1), Addr: b})
		}
		u := float64(len(live)) / float64(segBlocks)
		if len(live) < len(s.Used) || u > maxUtil || len(live) == int(segBlocks) {
			continue
		}
		age := s.AgeMs
		out = append(out, segCand{seg: s.Index, live: live, util: u, score: (1 - u) * (age + 1) / (1 + u)})
	}
	return out
}

// cleanSegmentsLocked moves the live blocks of cs to the log and
// commits once.
func (d *Disk) cleanSegmentsLocked(cs []segCand) error {
	t0 := d.v.NowMs()
	d.mv.cache = nil // read the segments now, not an older prefetch
	var live []Movable
	var blocks [][]byte
	for _, c := range cs {
		data, err := d.readMovableLocked(c.live)
		if err != nil {
			return fmt.Errorf("cleaning segment %d: %w", c.seg, err)
		}
		if n := len(c.live); n > 0 {
			d.cl.st.BlocksRead += int64(c.live[n-1].Addr-c.live[0].Addr) + 1
		}
		for _, m := range c.live {
			live = append(live, m)
			blocks = append(blocks, data[m.Addr])
		}
	}
	// Meta: the cleaner may use the reserve, it gives back more than it
	// takes.
	addrs, err := d.v.WriteBlocks(blocks, vld.WriteOpts{Meta: true})
	if err != nil {
		return fmt.Errorf("cleaning %d segments: %w", len(cs), err)
	}
	for i, m := range live {
		d.m[m.Logical] = uint32(addrs[i])
		d.dirty[uint32(m.Logical/d.per)] = true
		d.noteMapLocked(m.Logical, uint32(m.Addr), uint32(addrs[i]))
		// Released by the commit below, once the new map is durable.
		if err := d.v.Free(m.Addr); err != nil {
			return err
		}
	}
	d.mv.cache = nil
	if err := d.commitDirtyLocked(); err != nil {
		return err
	}
	d.cl.st.SegmentsCleaned += int64(len(cs))
	d.cl.st.BlocksMoved += int64(len(live))
	d.cl.st.CleanMs += d.v.NowMs() - t0
	return nil
}

// CleanIdle hands ms of idle time to the cleaner: it cleans segments no
// fuller than IdleMaxUtil, best first, one per commit (the step that idle
// time must fit), while the idle time lasts, then lets the rest pass. A
// segment is cleaned whole once started, so the last one may run past the
// idle time: waitMs is by how much (the next request waits that long). A
// disk not on PlaceLFS only idles.
func (d *Disk) CleanIdle(ms float64) (waitMs float64, err error) {
	if !(ms > 0) {
		return 0, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	deadline := d.v.NowMs() + ms
	if d.place == vld.PlaceLFS {
		cfg := d.cl.cfg.withDefaults()
		before := d.cl.st.SegmentsCleaned
		_, total := d.CleanSegments()
		err = d.cleanUntilLocked(total, cfg.IdleMaxUtil, deadline, 1)
		if d.cl.st.SegmentsCleaned > before {
			d.cl.st.IdleRuns++
		}
	}
	now := d.v.NowMs()
	if now < deadline {
		d.v.Idle(deadline - now)
		return 0, err
	}
	return now - deadline, err
}
