package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// Decode parses a profile strictly: unknown fields, trailing data, a wrong
// format or version, dimensions that disagree with the grid, and
// non-finite or negative values are all errors wrapping ErrCorrupt. The
// input is bounded by MaxFileBytes before anything is decoded, and the grid
// is checked against MaxSkips, MaxThinks and MaxCells, so the tables a
// consumer builds from a valid profile are bounded too.
func Decode(data []byte) (*Profile, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", len(data), MaxFileBytes, ErrCorrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the profile object: %w", ErrCorrupt)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Load reads and decodes a profile file.
func Load(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	p, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return p, nil
}

// Validate checks everything Decode checks after parsing.
func (p *Profile) Validate() error {
	if p.Format != Format || p.Version != Version {
		return fmt.Errorf("format %q version %d, want %q version %d: %w", p.Format, p.Version, Format, Version, ErrCorrupt)
	}
	if err := p.Meta.validate(); err != nil {
		return err
	}
	if err := p.Grid.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	for _, t := range []struct {
		name string
		m    [][]float64
	}{{"median_ms", p.MedianMs}, {"spread_ms", p.SpreadMs}, {"mean_ms", p.MeanMs}} {
		if err := p.Grid.checkTable(t.name, t.m); err != nil {
			return err
		}
	}
	return nil
}

func (m Meta) validate() error {
	switch {
	case m.Kind != KindSim && m.Kind != KindFile && m.Kind != KindBlockDev:
		return fmt.Errorf("meta.kind %q: %w", m.Kind, ErrCorrupt)
	case m.Clock != ClockSimulated && m.Clock != ClockWall:
		return fmt.Errorf("meta.clock %q: %w", m.Clock, ErrCorrupt)
	case m.BlockBytes < 512 || m.BlockBytes > MaxBlockBytes || m.BlockBytes%512 != 0:
		return fmt.Errorf("meta.block_bytes %d: want a multiple of 512 up to %d: %w", m.BlockBytes, MaxBlockBytes, ErrCorrupt)
	case m.Repetitions < 1:
		return fmt.Errorf("meta.repetitions %d: %w", m.Repetitions, ErrCorrupt)
	case m.RegionOffsetBytes < 0 || m.RegionBytes < 0:
		return fmt.Errorf("meta: negative region: %w", ErrCorrupt)
	}
	if _, err := time.Parse(time.RFC3339, m.Date); err != nil {
		return fmt.Errorf("meta.date %q: %w", m.Date, ErrCorrupt)
	}
	return nil
}

// Validate checks a grid's steps and counts (errors wrap ErrInvalid).
func (g Grid) Validate() error {
	switch {
	case g.SkipStepBytes < 512 || g.SkipStepBytes%512 != 0 || g.SkipStepBytes > MaxBlockBytes:
		return fmt.Errorf("skip step %d bytes: want a multiple of 512 up to %d: %w", g.SkipStepBytes, MaxBlockBytes, ErrInvalid)
	case g.Skips < 1 || g.Skips > MaxSkips:
		return fmt.Errorf("%d skips: want 1..%d: %w", g.Skips, MaxSkips, ErrInvalid)
	case g.Thinks < 1 || g.Thinks > MaxThinks:
		return fmt.Errorf("%d think times: want 1..%d: %w", g.Thinks, MaxThinks, ErrInvalid)
	case g.Skips*g.Thinks > MaxCells:
		return fmt.Errorf("%d x %d cells, more than %d: %w", g.Thinks, g.Skips, MaxCells, ErrInvalid)
	case math.IsNaN(g.ThinkStepMs) || g.ThinkStepMs < 0 || (g.Thinks > 1 && g.ThinkStepMs == 0):
		return fmt.Errorf("think step %v ms: %w", g.ThinkStepMs, ErrInvalid)
	case g.MaxThinkMs() > MaxThinkMs:
		return fmt.Errorf("think times up to %v ms, more than %v: %w", g.MaxThinkMs(), float64(MaxThinkMs), ErrInvalid)
	}
	return nil
}

// checkTable verifies one [think][skip] table's shape and values.
func (g Grid) checkTable(name string, m [][]float64) error {
	if len(m) != g.Thinks {
		return fmt.Errorf("%s: %d rows, grid has %d think times: %w", name, len(m), g.Thinks, ErrCorrupt)
	}
	for i, row := range m {
		if len(row) != g.Skips {
			return fmt.Errorf("%s row %d: %d values, grid has %d skips: %w", name, i, len(row), g.Skips, ErrCorrupt)
		}
		for j, v := range row {
			if math.IsNaN(v) || v < 0 || v > MaxCellMs {
				return fmt.Errorf("%s[%d][%d] = %v: %w", name, i, j, v, ErrCorrupt)
			}
		}
	}
	return nil
}
