package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// benchFlags is one run of `vlfs bench NAME`: its flag set, with the flags
// the benchmarks share registered under one name, type and meaning, and
// the checks and errors they share. A benchmark asks for the shared flags
// it takes and registers its own on fl.
type benchFlags struct {
	name           string // the benchmark, as in `vlfs bench NAME`
	fl             *flag.FlagSet
	stdout, stderr io.Writer

	asJSON   *bool
	diskName *string // nil: no --disk
	headSpec *string // nil: no --head
	place    *string // nil: no --placement
	clean    *string // nil: no --clean-policy
	eagerWhy string  // set: --placement only takes eager, and why
}

// Help texts that several benchmarks share word for word.
const (
	diskModelUsage = "disk preset or model file"
	seedUsage      = "random seed"
	// headUsage is the --head flag's help on the simulated benchmarks.
	headUsage = "eager placement's head model: sim (the simulator's own) or profile:FILE (vlfs profile; measured on the --disk in use)"
)

// newBenchFlags starts `vlfs bench NAME`'s flag set with --json, which
// every benchmark takes; synopsis is its usage line after the name.
func newBenchFlags(name, synopsis string, stdout, stderr io.Writer) *benchFlags {
	fl := flag.NewFlagSet("bench "+name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: vlfs bench %s %s\n", name, synopsis)
		fl.PrintDefaults()
	}
	b := &benchFlags{name: name, fl: fl, stdout: stdout, stderr: stderr}
	b.asJSON = fl.Bool("json", false, "print the report as JSON")
	return b
}

// quick defines --quick; usage says what the smaller run leaves out.
func (b *benchFlags) quick(usage string) *bool {
	return b.fl.Bool("quick", false, usage)
}

// disk defines --disk; model resolves it.
func (b *benchFlags) disk(def, usage string) *string {
	b.diskName = b.fl.String("disk", def, usage)
	return b.diskName
}

// seed defines --seed, 1 unless given.
func (b *benchFlags) seed(usage string) *int64 {
	return b.fl.Int64("seed", 1, usage)
}

// diskMiB defines --disk-mib, the simulated disk's size.
func (b *benchFlags) diskMiB(def int64, usage string) *int64 {
	return b.fl.Int64("disk-mib", def, usage)
}

// dir defines --dir, where a benchmark keeps its images and files.
func (b *benchFlags) dir(def, usage string) *string {
	return b.fl.String("dir", def, usage)
}

// updates defines --updates, the measured updates per point.
func (b *benchFlags) updates(def int, usage string) *int {
	return b.fl.Int("updates", def, usage)
}

// head defines --head; profile reads it.
func (b *benchFlags) head(def, usage string) *string {
	b.headSpec = b.fl.String("head", def, usage)
	return b.headSpec
}

// placement defines --placement for a benchmark that runs several.
func (b *benchFlags) placement(def, usage string) *string {
	b.place = b.fl.String("placement", def, usage)
	return b.place
}

// eagerOnly defines --placement on a benchmark that measures the disk or
// the VLD's own mechanisms, not a placement policy: parse accepts eager
// (the default) and refuses anything else, saying why.
func (b *benchFlags) eagerOnly(why string) {
	b.placement("eager", "only eager: "+why)
	b.eagerWhy = why
}

// cleanPolicy defines --clean-policy, the lfs rows' segment cleaner;
// cleaner reads it.
func (b *benchFlags) cleanPolicy() {
	b.clean = b.fl.String("clean-policy", "cost-benefit", "the lfs segment cleaner's policy: cost-benefit or greedy")
}

// quiet defines -q; logf is the progress log it silences.
func (b *benchFlags) quiet() *bool {
	return b.fl.Bool("q", false, "no progress on stderr")
}

// targets defines --targets, a comma-separated subset of known (all of
// them by default), read by pickNames.
func (b *benchFlags) targets(known []string) *string {
	return b.fl.String("targets", strings.Join(known, ","), "comma-separated targets")
}

// loopback defines --loopback, the go-fuse peer's binary (findLoopback).
func (b *benchFlags) loopback() *string {
	return b.fl.String("loopback", "", "vlfs-loopback binary (default: go build bench/loopback into bin/)")
}

// fsVersion defines --fs-version. Its default, 0, is vlfs mkfs's own
// default version; any other number goes to mkfs as it is, so that a
// version this code does not name can be measured.
func (b *benchFlags) fsVersion(usage string) *uint {
	return b.fl.Uint("fs-version", 0, usage)
}

// parse reads args: flags only (an operand is a usage error), and
// --placement checked here when only eager applies.
func (b *benchFlags) parse(args []string) bool {
	if err := b.fl.Parse(args); err != nil {
		return false
	}
	if b.fl.NArg() != 0 {
		b.fl.Usage()
		return false
	}
	return b.eagerWhy == "" || rejectPlacement(b.cmd(), *b.place, b.eagerWhy, b.stderr)
}

// cmd is the benchmark as its messages name it.
func (b *benchFlags) cmd() string { return "bench " + b.name }

// set reports whether the named flag was given on the command line.
func (b *benchFlags) set(name string) bool { return flagSet(b.fl, name) }

// model resolves --disk; a missing or bad one is reported (a usage error).
func (b *benchFlags) model() (*disk.Model, bool) {
	m, _ := resolveDisk(b.cmd(), *b.diskName, b.stderr)
	return m, m != nil
}

// profile reads --head with mount's and mkfs's parser: nil is the
// simulated head; a bad value is reported (a usage error).
func (b *benchFlags) profile() (*profile.Profile, bool) {
	return benchHead(b.cmd(), *b.headSpec, b.stderr)
}

// cleaner reads --clean-policy; a bad one is reported (a usage error).
func (b *benchFlags) cleaner() (vld.CleanPolicy, bool) {
	p, err := vld.ParseCleanPolicy(*b.clean)
	if err != nil {
		b.usageErr("--clean-policy: %v", err)
		return p, false
	}
	return p, true
}

// logf is the progress log -q silences: timestamped lines on stderr.
func (b *benchFlags) logf(quiet bool) func(string, ...any) {
	if quiet {
		return func(string, ...any) {}
	}
	return log.New(b.stderr, "", log.Ltime).Printf
}

// usageErr reports a bad flag value as the benchmark's and returns the
// usage exit code.
func (b *benchFlags) usageErr(format string, args ...any) int {
	fmt.Fprintf(b.stderr, "vlfs %s: "+format+"\n", append([]any{b.cmd()}, args...)...)
	return exitUsage
}

// report prints rep as --json asks, or reports err as benchFailure does.
func (b *benchFlags) report(rep *bench.Report, err error) int {
	if err != nil {
		return benchFailure(b.name, err, b.stderr)
	}
	return writeReport(rep, *b.asJSON, b.stdout, b.stderr)
}
