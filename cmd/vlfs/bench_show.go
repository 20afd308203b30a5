package main

import (
	"fmt"
	"io"
	"os"

	"github.com/vlfs/vlfs/bench"
)

// runBenchShow is `vlfs bench show FILE...`: prints saved `--json` reports
// as the benchmarks' tables, so `make bench` runs each benchmark once,
// keeps the JSON and still shows people the table. A report that drifts
// from the shared shape is printed with a warning.
func runBenchShow(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: vlfs bench show FILE.json...   (prints saved reports as tables)")
		return exitUsage
	}
	code := exitOK
	for i, path := range args {
		raw, err := os.ReadFile(path)
		if err == nil {
			err = showReport(raw, i > 0, stdout, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "vlfs bench show: %s: %v\n", path, err)
			code = exitFailure
		}
	}
	return code
}

// showReport prints one report's table, a blank line before all but the
// first.
func showReport(raw []byte, gap bool, stdout, stderr io.Writer) error {
	rep, err := bench.ReadReport(raw)
	if err != nil {
		return err
	}
	if err := bench.CheckShape(raw, ""); err != nil {
		fmt.Fprintf(stderr, "vlfs bench show: warning: %s: %v\n", rep.Bench, err)
	}
	if gap {
		fmt.Fprintln(stdout)
	}
	return rep.WriteTable(stdout)
}
