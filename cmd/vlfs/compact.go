package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/internal/liveline"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// compactResult is what `vlfs compact --json` prints. Times are simulated
// milliseconds on the image's disk model.
type compactResult struct {
	Image         string  `json:"image"`
	Policy        string  `json:"policy"`
	Tracks        int     `json:"tracks"`
	TargetTracks  int     `json:"target_tracks"`
	EmptyBefore   int     `json:"empty_tracks_before"`
	EmptyAfter    int     `json:"empty_tracks_after"`
	BlocksMoved   int64   `json:"blocks_moved"`
	TracksEmptied int64   `json:"tracks_emptied"`
	NoHoles       bool    `json:"stopped_for_lack_of_holes"`
	SimulatedMs   float64 `json:"simulated_ms"`
}

// runCompact is `vlfs compact IMAGE`: offline free-space compaction of a
// vlfs image or a logical-disk image (vlfs disk create), until the target
// fraction of empty tracks is reached or no hole is left to move blocks
// into.
func runCompact(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("compact", flag.ContinueOnError)
	fl.SetOutput(stderr)
	target := fl.Float64("target", compactor.DefaultTargetEmpty, "fraction of tracks to make empty (1: as many as possible)")
	policy := fl.String("policy", "cost-benefit", "source track choice: cost-benefit or random")
	step := fl.Int("step-blocks", compactor.DefaultStepBlocks, "blocks moved (and committed) per step")
	quiet := fl.Bool("quiet", false, "no progress bar")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs compact [--target F] [--policy cost-benefit|random] [--step-blocks N] [--quiet] [--json] IMAGE")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil || len(pos) != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	cfg := compactor.Config{TargetEmpty: *target, StepBlocks: *step}
	if cfg.Policy, err = compactor.ParsePolicy(*policy); err == nil {
		cfg, err = cfg.WithDefaults()
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs compact: %v\n", err)
		return exitUsage
	}
	res, err := compactImage(pos[0], cfg, *quiet, stderr)
	if err != nil {
		if strings.Contains(err.Error(), pos[0]) {
			fmt.Fprintf(stderr, "vlfs compact: %v\n", err) // it names the image already
		} else {
			fmt.Fprintf(stderr, "vlfs compact: %s: %v\n", pos[0], err)
		}
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return exitFailure
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: empty tracks %d -> %d of %d (target %d), %d blocks moved, %d tracks emptied, %.1f ms simulated\n",
		res.Image, res.EmptyBefore, res.EmptyAfter, res.Tracks, res.TargetTracks, res.BlocksMoved, res.TracksEmptied, res.SimulatedMs)
	if res.NoHoles {
		fmt.Fprintln(stdout, "stopped before the target: no hole left to move blocks into (the disk is too full)")
	}
	return exitOK
}

func compactImage(path string, cfg compactor.Config, quiet bool, stderr io.Writer) (*compactResult, error) {
	dev, err := device.OpenFile(path, device.FileOptions{})
	if err != nil {
		if errors.Is(err, device.ErrLocked) {
			return nil, fmt.Errorf("%w (the image is in use: stop what serves it first)", err)
		}
		return nil, err
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		dev.Close()
		if errors.Is(err, vld.ErrInvalid) {
			return compactFSImage(path, cfg, quiet, stderr) // not a logical disk: a vlfs image?
		}
		return nil, err
	}
	res, err := compactDisk(d, path, cfg, quiet, stderr)
	if cerr := d.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}

func compactDisk(d *logical.Disk, path string, cfg compactor.Config, quiet bool, stderr io.Writer) (*compactResult, error) {
	if d.Placement() != vld.PlaceEager {
		return nil, fmt.Errorf("an update-in-place disk has fixed homes: nothing to compact: %w", vld.ErrInvalid)
	}
	return compactTarget(compactor.Logical(d), path, cfg, quiet, stderr, func() error {
		if err := d.Sync(); err != nil {
			return err
		}
		return d.Volume().Protect()
	})
}

// settleRounds bounds how often compactTarget compacts again after the
// stop's own writes took empty tracks (one round is the usual).
const settleRounds = 3

// compactTarget compacts t offline, with a progress bar. settle commits
// what the compaction left and writes what the clean stop would (piece
// copies and a checkpoint at rest: Volume.Protect): those writes go nearest
// the head and may fill a track just emptied, so the compaction runs again
// until the image reaches its target as it will be left.
func compactTarget(t compactor.Target, path string, cfg compactor.Config, quiet bool, stderr io.Writer, settle func() error) (*compactResult, error) {
	c, err := compactor.New(t, cfg)
	if err != nil {
		return nil, err
	}
	space, empty := t.Space(nil)
	res := &compactResult{Image: path, Policy: cfg.Policy.String(), Tracks: len(space), EmptyBefore: empty}
	var bar func(compactor.Progress)
	if !quiet {
		bar = progressBar(stderr, res.EmptyBefore)
	}
	for range settleRounds {
		if err := c.Compact(bar); err != nil {
			return nil, err
		}
		if err := settle(); err != nil {
			return nil, fmt.Errorf("committing the compaction: %w", err)
		}
		if empty, _ := t.EmptyCount(); empty >= c.Stats().TargetTracks {
			break
		}
	}
	s := c.Stats()
	_, res.EmptyAfter = t.Space(space)
	res.TargetTracks = s.TargetTracks
	res.BlocksMoved, res.TracksEmptied, res.SimulatedMs = s.BlocksMoved, s.TracksEmptied, s.WorkMs
	res.NoHoles = s.NoHoles > 0 && res.EmptyAfter < res.TargetTracks
	if !quiet {
		fmt.Fprintln(stderr)
	}
	return res, nil
}

// progressBar draws, on one line of w, how far the empty tracks have come
// from where they started towards the target; it redraws only on change.
func progressBar(w io.Writer, start int) func(compactor.Progress) {
	const width = 30
	line := liveline.New(w)
	return func(p compactor.Progress) {
		span := max(p.TargetTracks-start, 1)
		filled := min(max((p.EmptyTracks-start)*width/span, 0), width)
		bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
		// A log gets a line each time the bar grows, not each step.
		line.Show(fmt.Sprintf("[%s] %d/%d empty tracks, %d blocks moved", bar, p.EmptyTracks, p.TargetTracks, p.BlocksMoved), bar)
	}
}
