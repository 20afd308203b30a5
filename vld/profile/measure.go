package profile

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// Target is a device the measurement writes to. Offsets are relative to
// the start of the target's region, and a Target never writes outside
// [0, Size()).
type Target interface {
	// Size is the region's size in bytes.
	Size() int64
	// Write writes buf at off synchronously (durable on return) and
	// returns how long it took, in ms on the target's clock.
	Write(off int64, buf []byte) (float64, error)
	// Wait lets ms pass on the target's clock with nothing issued.
	Wait(ms float64)
	// Info describes the target for the profile's metadata.
	Info() TargetInfo
}

// TargetInfo is what a Target says about itself.
type TargetInfo struct {
	Kind        string // KindSim, KindFile, KindBlockDev
	Clock       string // ClockSimulated or ClockWall
	OffsetBytes int64  // where the region starts on the device
	Dsync       bool
	Direct      bool
}

// Config is one measurement: the grid, how often each point is measured,
// and the metadata to record.
type Config struct {
	Grid        Grid
	BlockBytes  int // size of every write; default 4096
	Repetitions int // measurements per grid point; default 5
	Seed        int64
	Target      string // the target as the user named it
	Tool        string
	ToolVersion string
	// Progress, if set, is called after every measurement with the
	// number done and the total.
	Progress func(done, total int)
	// Now gives the date recorded in the metadata; nil is time.Now.
	Now func() time.Time
}

func (c *Config) setDefaults() {
	if c.BlockBytes == 0 {
		c.BlockBytes = 4096
	}
	if c.Repetitions == 0 {
		c.Repetitions = 5
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

func (c *Config) validate(size int64) error {
	if err := c.Grid.Validate(); err != nil {
		return err
	}
	switch {
	case c.BlockBytes < 512 || c.BlockBytes%512 != 0 || c.BlockBytes > MaxBlockBytes:
		return fmt.Errorf("block size %d: want a multiple of 512 up to %d: %w", c.BlockBytes, MaxBlockBytes, ErrInvalid)
	case c.Repetitions < 1:
		return fmt.Errorf("%d repetitions: %w", c.Repetitions, ErrInvalid)
	}
	// Each measurement needs room for the first block, the skip and the
	// second block, and a choice of start positions.
	lo, hi := c.starts(size)
	if hi-lo < 16*int64(c.BlockBytes) {
		return fmt.Errorf("region of %d bytes is too small for skips up to %d bytes: %w", size, c.Grid.MaxSkipBytes(), ErrInvalid)
	}
	return nil
}

// starts is the range of first-write offsets [lo, hi] for which both
// writes of every grid point stay inside a region of size bytes.
func (c *Config) starts(size int64) (lo, hi int64) {
	return 0, size - 2*int64(c.BlockBytes) - c.Grid.MaxSkipBytes()
}

// Measure profiles t: for every grid point, Repetitions times, it writes
// a block at a random block-aligned start, waits the think time, writes
// the next block skip bytes past the first one's end, and records the time
// of that second write. The repetitions are spread over passes, each
// visiting the grid in a new random order, so that a slow drift of the
// device (or of the host) does not bias one region of the grid.
func Measure(ctx context.Context, t Target, c Config) (*Profile, error) {
	c.setDefaults()
	size := t.Size()
	if err := c.validate(size); err != nil {
		return nil, err
	}
	g := c.Grid
	rng := rand.New(rand.NewSource(c.Seed))
	buf := device.AlignedBuffer(c.BlockBytes)
	rng.Read(buf) // not zeros: some devices compress or deduplicate
	samples := make([][]float64, g.Cells())
	total, done := g.Cells()*c.Repetitions, 0
	lo, hi := c.starts(size)
	starts := (hi - lo) / int64(c.BlockBytes)
	for pass := 0; pass < c.Repetitions; pass++ {
		for _, k := range rng.Perm(g.Cells()) {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("profile: %w", err)
			}
			i, j := k/g.Skips, k%g.Skips
			off := lo + rng.Int63n(starts+1)*int64(c.BlockBytes)
			ms, err := measureOne(t, buf, off, g.SkipBytes(j), g.ThinkMs(i))
			if err != nil {
				return nil, err
			}
			samples[k] = append(samples[k], ms)
			done++
			if c.Progress != nil {
				c.Progress(done, total)
			}
		}
	}
	return assemble(c, t.Info(), size, samples), nil
}

// measureOne is one sample: write, think, write skip further on, timed.
func measureOne(t Target, buf []byte, off, skip int64, thinkMs float64) (float64, error) {
	if _, err := t.Write(off, buf); err != nil {
		return 0, fmt.Errorf("profile: first write at %d: %w", off, err)
	}
	t.Wait(thinkMs)
	second := off + int64(len(buf)) + skip
	ms, err := t.Write(second, buf)
	if err != nil {
		return 0, fmt.Errorf("profile: second write at %d: %w", second, err)
	}
	return ms, nil
}

// assemble turns the samples into a Profile.
func assemble(c Config, info TargetInfo, size int64, samples [][]float64) *Profile {
	g := c.Grid
	p := &Profile{
		Format:  Format,
		Version: Version,
		Meta: Meta{
			Target: c.Target, Kind: info.Kind, BlockBytes: c.BlockBytes,
			Date: c.Now().UTC().Format(time.RFC3339), Tool: c.Tool, ToolVersion: c.ToolVersion,
			Clock: info.Clock, RegionOffsetBytes: info.OffsetBytes, RegionBytes: size,
			Repetitions: c.Repetitions, Seed: c.Seed, Dsync: info.Dsync, Direct: info.Direct,
		},
		Grid:     g,
		MedianMs: make([][]float64, g.Thinks),
		SpreadMs: make([][]float64, g.Thinks),
		MeanMs:   make([][]float64, g.Thinks),
	}
	for i := 0; i < g.Thinks; i++ {
		p.MedianMs[i] = make([]float64, g.Skips)
		p.SpreadMs[i] = make([]float64, g.Skips)
		p.MeanMs[i] = make([]float64, g.Skips)
		for j := 0; j < g.Skips; j++ {
			s := summarize(samples[i*g.Skips+j])
			p.MedianMs[i][j], p.SpreadMs[i][j], p.MeanMs[i][j] = s.median, s.spread, s.mean
		}
	}
	return p
}
