package main

import (
	"flag"
	"fmt"
	"io"
	"log"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// benchFlags is one run of `vlfs bench NAME`: its flag set, with the flags
// the benchmarks share defined under one name, type and meaning
// (bench_flags_shared.go), and the checks and errors they share. A
// benchmark asks for the shared flags it takes, defines its own on fl,
// and after parse reads the shared ones' values from the fields below.
type benchFlags struct {
	name           string // the benchmark, as in `vlfs bench NAME`
	fl             *flag.FlagSet
	stdout, stderr io.Writer
	asJSON         *bool
	// checks read and check the shared flags after parsing, in the order
	// they were defined; each reports its own error.
	checks []func() bool

	// Set by parse from the shared flags that were asked for.
	model   *disk.Model         // --disk; nil when none was given where it may be left out
	head    *profile.Profile    // --head; nil: the simulated head
	places  []vld.Placement     // --placement
	cleaner logical.CleanPolicy // --clean-policy
}

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

// parse reads args, flags only (an operand is a usage error), then reads
// and checks the shared flags. False: a usage error, already reported.
func (b *benchFlags) parse(args []string) bool {
	if err := b.fl.Parse(args); err != nil {
		return false
	}
	if b.fl.NArg() != 0 {
		b.fl.Usage()
		return false
	}
	for _, check := range b.checks {
		if !check() {
			return false
		}
	}
	return true
}

// cmd is the benchmark as its messages name it.
func (b *benchFlags) cmd() string { return "bench " + b.name }

// set reports whether the named flag was given on the command line.
func (b *benchFlags) set(name string) bool { return flagSet(b.fl, name) }

// usageErr reports a bad flag value as the benchmark's and returns the
// usage exit code.
func (b *benchFlags) usageErr(format string, args ...any) int {
	fmt.Fprintf(b.stderr, "vlfs %s: "+format+"\n", append([]any{b.cmd()}, args...)...)
	return exitUsage
}

// logf is the progress log -q silences: timestamped lines on stderr.
func (b *benchFlags) logf(quiet bool) func(string, ...any) {
	if quiet {
		return func(string, ...any) {}
	}
	return log.New(b.stderr, "", log.Ltime).Printf
}

// report prints rep as --json asks, or reports err as benchFailure does.
func (b *benchFlags) report(rep *bench.Report, err error) int {
	if err != nil {
		return benchFailure(b.name, err, b.stderr)
	}
	return writeReport(rep, *b.asJSON, b.stdout, b.stderr)
}
