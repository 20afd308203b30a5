package main

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld/disk"
)

// benchmark is one `vlfs bench NAME`: run gets the arguments after NAME.
type benchmark struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// benchmarks lists every benchmark; each lives in its own bench_NAME.go.
// To add one, add its line here.
func benchmarks() map[string]benchmark {
	return map[string]benchmark{
		"batch":      {"Carson & Setia: read response vs write batch size, model and live scheduler, c* vs segment vs FIFO (simulated)", runBenchBatch},
		"breakdown":  {"Table 2 / Figure 9: latency breakdown of synchronous updates at 80%, eager vs in place (simulated)", runBenchBreakdown},
		"fullness":   {"vlfs (compactor on/off) and ext4 filled to 0-99 %: write+fsync, creates, unlinks, CPU per op (wall); update latency vs formula (2) (simulated)", runBenchFullness},
		"hostflush":  {"the host's cost of making 1, 2 and 5 blocks durable, the floor under write+fsync (wall)", runBenchHostFlush},
		"idle":       {"Figure 11: bursts of synchronous updates at 80% with idle intervals, compactor on/off (simulated)", runBenchIdle},
		"logical":    {"random synchronous 4 KiB updates in ext4 on the exported VLD, eager vs in place, + wall cost per layer (simulated + wall)", runBenchLogical},
		"largefile":  {"Figure 7: a 10 MB file written and read sequentially and at random on vlfs, inplace vs eager vs lfs (simulated)", runBenchLargefile},
		"locate":     {"Figure 1: time to reach the nearest free unit vs utilization (simulated)", runBenchLocate},
		"mountbatch": {"c* vs segment vs FIFO through a FUSE mount: random O_DIRECT reads beside appending, fsyncing writers (wall, real-time disk)", runBenchMountBatch},
		"peers":      {"vlfs vs native, fuse2fs, go-fuse loopback: fio, varmail, oltp, 100k files, SQLite (wall)", runBenchPeers},
		"smallfile":  {"Figure 6: 1,500 files of 1 KB created, read cold, deleted on vlfs, inplace vs eager vs lfs (simulated)", runBenchSmallfile},
		"threshold":  {"Figure 2: locate latency vs track-switch threshold (simulated)", runBenchThreshold},
		"updates":    {"Figure 8: random synchronous updates, eager vs in-place, vs utilization (simulated)", runBenchUpdates},

		"headmodels": {"head models: the oracle, profiled (Bark) and none under synchronous updates, journal appends, a host file and SQLite (simulated / wall)", runBenchHeadModels},
		"ranges":     {"Figures 4-8 of the range-writes paper: range writes scheduled by HRS vs ECS (simulated)", runBenchRanges},
		"scaling":    {"varmail and oltp at 1, 2, 4, 8 and 16 threads against every peer (wall)", runBenchScaling},
		"scale":      {"mount time of a clean 1 GiB image with 100,000 files, resident memory with 1,000,000 files, a sparse 1 TiB image made, mounted and checked (wall)", runBenchScale},
	}
}

// runBench dispatches `vlfs bench NAME [options]`.
func runBench(args []string, stdout, stderr io.Writer) int {
	bs := benchmarks()
	if len(args) == 0 {
		benchUsage(stderr, bs)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "--help":
		benchUsage(stdout, bs)
		return exitOK
	case "show":
		return runBenchShow(args[1:], stdout, stderr)
	}
	b, ok := bs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "vlfs bench: unknown benchmark %q (try vlfs bench help)\n", args[0])
		return exitUsage
	}
	return b.run(args[1:], stdout, stderr)
}

func benchUsage(w io.Writer, bs map[string]benchmark) {
	fmt.Fprintln(w, "usage: vlfs bench NAME [options]   (vlfs bench NAME -h for its options)")
	fmt.Fprintln(w, "       vlfs bench show FILE.json...   (print saved --json reports as tables)")
	fmt.Fprintln(w, "benchmarks:")
	names := make([]string, 0, len(bs))
	for n := range bs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, bs[n].summary)
	}
}

// writeReport prints a benchmark report as JSON or as a table.
func writeReport(rep *bench.Report, asJSON bool, stdout, stderr io.Writer) int {
	var err error
	if asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs bench %s: %v\n", rep.Bench, err)
		return exitFailure
	}
	return exitOK
}

// benchFailure reports a benchmark error: bad input (a disk model or a
// unit size that does not fit) is a usage error, anything else operational.
func benchFailure(name string, err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "vlfs bench %s: %v\n", name, err)
	if errors.Is(err, disk.ErrBadLayout) || errors.Is(err, disk.ErrInvalidModel) || errors.Is(err, disk.ErrUnknownPreset) {
		return exitUsage
	}
	return exitFailure
}

// resolveDisk loads --disk, reporting a missing or bad one as usage errors.
func resolveDisk(cmd, name string, stderr io.Writer) (*disk.Model, int) {
	if name == "" {
		fmt.Fprintf(stderr, "vlfs %s: --disk is required (a preset: %v, or a model file)\n", cmd, disk.PresetNames())
		return nil, exitUsage
	}
	m, err := disk.Resolve(name)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	return m, exitOK
}
