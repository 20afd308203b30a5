// Command figures draws the plots of docs/figures and writes
// docs/results.md from the JSON reports of `vlfs bench NAME --json` saved
// in docs/results (by `make bench`, tools/figures/run-bench.sh). It reads
// only that JSON, never the human tables, and draws the papers' published
// values (paper.go) beside ours where the papers give them.
//
// It is a separate Go module so that the main module, and `make test`,
// never compile gonum/plot. Run it with `make figures`, or
//
//	cd tools/figures && go run . -results ../../docs/results -out ../../docs
//
// A figure whose reports are absent is skipped with a message; the others
// are still drawn.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run parses the flags, draws every figure it has data for and writes
// results.md. Exit codes: 0 ok, 2 usage, 8 an error (unreadable JSON, a
// file that cannot be written).
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("figures", flag.ContinueOnError)
	fl.SetOutput(stderr)
	results := fl.String("results", "docs/results", "directory of the benchmarks' JSON reports")
	out := fl.String("out", "docs", "docs directory: plots go to OUT/figures, the page to OUT/results.md")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		return 2
	}
	rs, err := loadResults(*results)
	if err != nil {
		fmt.Fprintf(stderr, "figures: %v\n", err)
		return 8
	}
	figDir := filepath.Join(*out, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "figures: %v\n", err)
		return 8
	}
	var secs []section
	for _, f := range figureList() {
		s, err := f.draw(rs, figDir)
		if errors.Is(err, errAbsent) {
			fmt.Fprintf(stderr, "figures: skip %s: %v\n", f.name, err)
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "figures: %s: %v\n", f.name, err)
			return 8
		}
		fmt.Fprintf(stdout, "figures: %s -> %v\n", f.name, s.images)
		secs = append(secs, s)
	}
	secs = append(secs, otherTables(rs)...)
	md := filepath.Join(*out, "results.md")
	if err := os.WriteFile(md, []byte(markdown(rs, secs)), 0o644); err != nil {
		fmt.Fprintf(stderr, "figures: %v\n", err)
		return 8
	}
	fmt.Fprintf(stdout, "figures: wrote %s (%d sections)\n", md, len(secs))
	return 0
}

// figure is one entry of docs/results.md: a name for messages and a
// function that draws its plots into dir.
type figure struct {
	name string
	draw func(rs *results, dir string) (section, error)
}

// figureList is every figure, in the order of docs/results.md.
func figureList() []figure {
	return []figure{
		{"vlog-fig1-locate", drawLocate},
		{"vlog-fig2-threshold", drawThreshold},
		{"vlog-fig8-updates", drawUpdates},
		{"vlog-fig9-breakdown", drawBreakdown},
		{"vlog-fig11-idle", drawIdle},
		{"batch-fig2", drawBatch},
		{"ranges-fig4-6", drawRangesQueue},
		{"ranges-fig7-reads", drawRangesReads},
		{"ranges-fig8-choices", drawRangesChoices},
		{"headmodels", drawHeadModels},
		{"headmodels-profile", drawProfile},
		{"peers", drawPeers},
		{"scaling", drawScaling},
		{"fullness", drawFullness},
		{"hostflush", drawHostFlush},
	}
}

// section is what one figure contributes to docs/results.md.
type section struct {
	title   string
	images  []string // file names in docs/figures (the .svg; a .png sits beside each)
	caption string   // what is drawn, and where the paper's values come from
	verdict []string // what matches the paper (or the target) and what does not
	table   string   // optional markdown table
	sources []string // the JSON files it read
}
