package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/internal/liveline"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// profileArgs are the parsed flags of `vlfs profile`.
type profileArgs struct {
	target, out, show              string
	size, offset, region           string
	block                          int
	skipKiB, skipStepKiB           float64
	thinkMs, thinkStepMs           float64
	reps                           int
	seed                           int64
	keep, destroy, noDirect, quiet bool
	asJSON                         bool
	set                            map[string]bool
}

// runProfile is `vlfs profile TARGET --out FILE`: measure a device's
// write cost by skip distance and think time (Bark, section 6 of the
// range-writes paper), or `vlfs profile --show FILE` to summarise one.
func runProfile(args []string, stdout, stderr io.Writer) int {
	a, code := parseProfileArgs(args, stderr)
	if a == nil {
		return code
	}
	if a.show != "" {
		p, err := profile.Load(a.show)
		if err != nil {
			fmt.Fprintf(stderr, "vlfs profile: %v\n", err)
			return exitFailure
		}
		return printProfile(p, a.asJSON, true, stdout, stderr)
	}
	p, err := a.measure(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs profile: %v\n", err)
		if errors.Is(err, profile.ErrInvalid) || errors.Is(err, disk.ErrUnknownPreset) {
			return exitUsage
		}
		return exitFailure
	}
	if err := profile.Save(p, a.out); err != nil {
		fmt.Fprintf(stderr, "vlfs profile: %v\n", err)
		return exitFailure
	}
	return printProfile(p, a.asJSON, false, stdout, stderr)
}

func parseProfileArgs(args []string, stderr io.Writer) (*profileArgs, int) {
	a := &profileArgs{}
	fl := flag.NewFlagSet("profile", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&a.out, "out", "", "write the profile (JSON) here")
	fl.StringVar(&a.show, "show", "", "summarise and plot a profile file instead of measuring")
	fl.StringVar(&a.size, "size", "", "region size: of the file to create, or of the simulated disk (default 64MiB for a file, 128MiB for sim:)")
	fl.StringVar(&a.offset, "offset", "0", "start of the region on the file or device")
	fl.StringVar(&a.region, "region", "0", "size of the region on an existing file or device (0: to the end)")
	fl.IntVar(&a.block, "block", 4096, "bytes per write (the VLD's block size)")
	fl.Float64Var(&a.skipKiB, "skip-kib", 256, "largest skip in KiB (sim: default 640)")
	fl.Float64Var(&a.skipStepKiB, "skip-step-kib", 4, "skip step in KiB (a multiple of 0.5)")
	fl.Float64Var(&a.thinkMs, "think-ms", 2, "longest think time in ms (sim: default 20)")
	fl.Float64Var(&a.thinkStepMs, "think-step-ms", 0.25, "think-time step in ms (sim: default 0.05)")
	fl.IntVar(&a.reps, "reps", 5, "repetitions per grid point (sim: default 9)")
	fl.Int64Var(&a.seed, "seed", 1, "random seed for the start positions and the order")
	fl.BoolVar(&a.keep, "keep", false, "keep a file the measurement created")
	fl.BoolVar(&a.destroy, "destroy-data", false, "write over an existing file, or a block device holding a file system or image (never a mounted one)")
	fl.BoolVar(&a.noDirect, "no-direct", false, "do not use O_DIRECT")
	fl.BoolVar(&a.quiet, "quiet", false, "no progress bar")
	fl.BoolVar(&a.asJSON, "json", false, "print the summary as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs profile TARGET --out FILE [options]   TARGET: a new or existing file, a block device, or sim:PRESET")
		fmt.Fprintln(stderr, "       vlfs profile --show FILE [--json]")
		fl.PrintDefaults()
	}
	rest, err := parseFlagsAnywhere(fl, args)
	if err != nil {
		return nil, exitUsage
	}
	a.set = map[string]bool{}
	fl.Visit(func(f *flag.Flag) { a.set[f.Name] = true })
	switch {
	case a.show != "" && len(rest) == 0:
		return a, exitOK
	case a.show == "" && len(rest) == 1 && a.out != "":
		a.target = rest[0]
		return a, exitOK
	}
	fl.Usage()
	return nil, exitUsage
}

// isSim reports whether the target is the simulator.
func (a *profileArgs) isSim() bool { return strings.HasPrefix(a.target, "sim:") }

// config builds the measurement settings, with the simulator's defaults
// (bench.SimGrid) for flags left unset on a sim: target.
func (a *profileArgs) config(stderr io.Writer) (profile.Config, error) {
	if a.isSim() {
		g, reps := bench.SimGrid()
		a.defaultTo("skip-kib", &a.skipKiB, float64(g.MaxSkipBytes())/1024)
		a.defaultTo("skip-step-kib", &a.skipStepKiB, float64(g.SkipStepBytes)/1024)
		a.defaultTo("think-ms", &a.thinkMs, g.MaxThinkMs())
		a.defaultTo("think-step-ms", &a.thinkStepMs, g.ThinkStepMs)
		if !a.set["reps"] {
			a.reps = reps
		}
	}
	step := int64(a.skipStepKiB * 1024)
	if step <= 0 || a.thinkStepMs <= 0 || a.skipKiB < 0 || a.thinkMs < 0 {
		return profile.Config{}, fmt.Errorf("skip and think steps must be positive, maxima not negative: %w", profile.ErrInvalid)
	}
	g := profile.Grid{
		SkipStepBytes: step,
		Skips:         int(a.skipKiB*1024/float64(step)+1e-9) + 1,
		ThinkStepMs:   a.thinkStepMs,
		Thinks:        int(a.thinkMs/a.thinkStepMs+1e-9) + 1,
	}
	c := profile.Config{
		Grid: g, BlockBytes: a.block, Repetitions: a.reps, Seed: a.seed,
		Target: a.target, Tool: "vlfs profile", ToolVersion: toolVersion(),
	}
	if !a.quiet {
		c.Progress = profileProgress(stderr, a.target)
	}
	return c, nil
}

func (a *profileArgs) defaultTo(name string, v *float64, def float64) {
	if !a.set[name] {
		*v = def
	}
}

// measure opens the target and runs the measurement; Ctrl-C stops it and
// still removes a file it created.
func (a *profileArgs) measure(stderr io.Writer) (*profile.Profile, error) {
	c, err := a.config(stderr)
	if err != nil {
		return nil, err
	}
	t, closeT, err := a.openTarget()
	if err != nil {
		return nil, err
	}
	defer closeT()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return profile.Measure(ctx, t, c)
}

// openTarget opens sim:PRESET, a file or a block device.
func (a *profileArgs) openTarget() (profile.Target, func(), error) {
	sizes := map[string]int64{}
	for name, s := range map[string]string{"size": a.size, "offset": a.offset, "region": a.region} {
		if s == "" {
			continue
		}
		v, err := parseSize(s)
		if err != nil {
			return nil, nil, fmt.Errorf("--%s: %v: %w", name, err, profile.ErrInvalid)
		}
		sizes[name] = v
	}
	if a.isSim() {
		m, err := disk.Resolve(strings.TrimPrefix(a.target, "sim:"))
		if err != nil {
			return nil, nil, err
		}
		size := sizes["size"]
		if a.size == "" {
			size = 128 << 20
		}
		s, err := profile.NewSim(m, a.block, size)
		return s, func() {}, err
	}
	size := sizes["size"]
	if a.size == "" {
		size = 64 << 20
	}
	f, err := profile.OpenFile(a.target, profile.FileOptions{
		Size: size, Offset: sizes["offset"], Region: sizes["region"],
		DestroyData: a.destroy, NoDirect: a.noDirect, Keep: a.keep,
	})
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// profileProgress draws "[####....] 42% 1234/5000, 1m3s left" on one line of
// w, at most ten times a second, and ends the line when done.
func profileProgress(w io.Writer, what string) func(done, total int) {
	start, last := time.Now(), time.Time{}
	line := liveline.New(w)
	return func(done, total int) {
		now := time.Now()
		if done < total && now.Sub(last) < 100*time.Millisecond {
			return
		}
		last = now
		const width = 30
		fill := done * width / max(total, 1)
		left := time.Duration(float64(now.Sub(start)) * float64(total-done) / float64(max(done, 1)))
		pct := done * 100 / max(total, 1)
		line.Show(fmt.Sprintf("%s [%s%s] %3d%% %d/%d, %v left", what, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
			pct, done, total, left.Round(time.Second)), fmt.Sprint(pct/10)) // a log: a line per 10 %
		if done >= total {
			line.End()
		}
	}
}

// toolVersion is the module version and VCS revision of this binary, and
// the Go release that built it (builds with -buildvcs=false, as here, have
// no revision: the release and the date still tell two profiles apart).
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	return v + " " + bi.GoVersion
}

// printProfile prints a profile's summary, and with plot a map of it.
func printProfile(p *profile.Profile, asJSON, plot bool, stdout, stderr io.Writer) int {
	s := p.Summarize()
	rows := make([]profile.RowSummary, 0, p.Grid.Thinks)
	for i := 0; i < p.Grid.Thinks; i++ {
		rows = append(rows, p.Row(i))
	}
	if asJSON {
		out := map[string]any{"meta": p.Meta, "grid": p.Grid, "summary": s, "rows": rows}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "vlfs profile: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	m, g := p.Meta, p.Grid
	fmt.Fprintf(stdout, "profile of %s (%s, %s clock), %d-byte writes, %s, %s %s\n", m.Target, m.Kind, m.Clock, m.BlockBytes, m.Date, m.Tool, m.ToolVersion)
	fmt.Fprintf(stdout, "grid: skip 0..%d KiB step %g KiB (%d), think 0..%g ms step %g ms (%d), %d repetitions\n",
		g.MaxSkipBytes()>>10, float64(g.SkipStepBytes)/1024, g.Skips, g.MaxThinkMs(), g.ThinkStepMs, g.Thinks, m.Repetitions)
	verdict := "position-dependent"
	if s.Flat {
		verdict = "flat"
	}
	fmt.Fprintf(stdout, "cells (median ms): min %.3f median %.3f max %.3f; gain of the cheapest skip %.0f%% (vs skip 0: %.0f%%); noise %.0f%%: %s\n",
		s.MinMs, s.MedianMs, s.MaxMs, 100*s.Gain, 100*s.SeqGain, 100*s.RelSpread, verdict)
	if m.Repetitions < 3 {
		// One or two samples per cell give no spread to judge noise by.
		fmt.Fprintf(stdout, "note: %d repetition(s): the noise, and so the verdict, cannot be judged; measure with --reps 3 or more\n", m.Repetitions)
	}
	step := max(1, len(rows)/10)
	fmt.Fprintln(stdout, "think_ms  best_skip_kib  best_ms  seq_ms  median_ms")
	for i := 0; i < len(rows); i += step {
		r := rows[i]
		fmt.Fprintf(stdout, "%8.2f  %13d  %7.3f  %6.3f  %9.3f\n", r.ThinkMs, r.BestSkipBytes>>10, r.BestMs, r.SeqMs, r.MedianMs)
	}
	if plot {
		plotProfile(stdout, p)
	}
	return exitOK
}

// plotProfile draws the median table as characters, cheap " .:-=+*#%@"
// expensive, by deciles of the cell values: think time down, skip across.
func plotProfile(w io.Writer, p *profile.Profile) {
	const shades = " .:-=+*#%@"
	g := p.Grid
	rowStep, colStep := max(1, (g.Thinks+39)/40), max(1, (g.Skips+71)/72)
	var all []float64
	for _, r := range p.MedianMs {
		all = append(all, r...)
	}
	sort.Float64s(all)
	shade := func(v float64) byte {
		k := sort.SearchFloat64s(all, v) * len(shades) / len(all)
		return shades[min(k, len(shades)-1)]
	}
	fmt.Fprintf(w, "median write time by think time (rows, 0..%g ms) and skip (columns, 0..%d KiB); darker is slower\n", g.MaxThinkMs(), g.MaxSkipBytes()>>10)
	for i := 0; i < g.Thinks; i += rowStep {
		line := make([]byte, 0, g.Skips/colStep+1)
		for j := 0; j < g.Skips; j += colStep {
			line = append(line, shade(p.MedianMs[i][j]))
		}
		fmt.Fprintf(w, "%7.2f |%s|\n", g.ThinkMs(i), line)
	}
}

// parseFlagsAnywhere parses flags that may follow positional arguments.
func parseFlagsAnywhere(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		if fl.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fl.Arg(0))
		args = fl.Args()[1:]
	}
}
