package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vlfs/vlfs/damage"
	"github.com/vlfs/vlfs/internal/liveline"
	"github.com/vlfs/vlfs/vld/device"
)

// damageResult is what `vlfs damage --json` prints.
type damageResult struct {
	Image string `json:"image"`
	*damage.Report
	ExitCode int `json:"exit_code"`
}

// runDamage is issue 34's damage matrix for an image of any size: it
// damages copies of the image (in memory, over the untouched file) one
// block at a time, runs fsck --repair on each and checks what survives
// (package damage, docs/fsck.md). Exit codes: 0 every case held, 4 some
// case failed, 8 the image cannot be used (not clean, not vlfs, mounted).
func runDamage(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("damage", flag.ContinueOnError)
	fl.SetOutput(stderr)
	kinds := fl.String("kinds", strings.Join(damage.DefaultKinds, ","), "kinds of block to damage, of "+strings.Join(damage.AllKinds(), ",")+" (log-root and log-entry have one copy: not in the default)")
	damages := fl.String("damages", strings.Join(damage.Damages, ","), "how: bit (one bit flipped), zero, random (bytes), stale (an older version of the block: a small change through vlfs moves it, and the bytes from before the change are put where it went; the superblock and log entries, written once, have none and are reported skipped)")
	samples := fl.Int("samples", 2, "blocks of each kind, picked by --seed")
	seed := fl.Int64("seed", 1, "seed of the picks and the random damage (a run is replayed by its seed)")
	asJSON := fl.Bool("json", false, "print the report as JSON (every case)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs damage [--kinds K,..] [--damages D,..] [--samples N] [--seed S] [--json] IMAGE")
		fmt.Fprintln(stderr, "damages copies of a clean, unmounted image block by block (the image itself is only read),")
		fmt.Fprintln(stderr, "repairs each with fsck --repair and checks that no file the block did not hold changed")
		fmt.Fprintln(stderr, "(for stale: from the state after the change that made the older version; its older version must be found)")
		fmt.Fprintln(stderr, "exit codes: 0 every case held, 4 a case failed, 8 the image cannot be used")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 1 || *samples < 1 {
		fl.Usage()
		return exitUsage
	}
	path := fl.Arg(0)
	dev, err := device.OpenFile(path, device.FileOptions{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(stderr, "vlfs damage: %v\n", err)
		if errors.Is(err, device.ErrLocked) {
			fmt.Fprintln(stderr, "vlfs damage: the image is mounted: unmount it first (vlfs umount MOUNTPOINT)")
		}
		return exitFailure
	}
	defer dev.Close()
	line := liveline.New(stderr)
	rep, err := damage.Run(damage.Config{Image: dev, Kinds: splitList(*kinds), Damages: splitList(*damages), Samples: *samples, Seed: *seed,
		Progress: func(done, total int, c damage.Case) {
			verdict := "held"
			if len(c.Failures) > 0 {
				verdict = "FAILED: " + c.Failures[0]
			}
			at := fmt.Sprintf("block %d", c.Addr)
			if c.Damage == damage.DamageStale {
				at += fmt.Sprintf(" (what block %d held)", c.StaleOf)
			}
			line.Show(fmt.Sprintf("[%d/%d] %s %s at %s: %s", done, total, c.Kind, c.Damage, at, verdict), fmt.Sprint(done))
		}})
	line.End()
	if err != nil {
		fmt.Fprintf(stderr, "vlfs damage: %s: %v\n", path, err)
		if errors.Is(err, damage.ErrConfig) {
			return exitUsage
		}
		return exitFailure
	}
	res := damageResult{Image: path, Report: rep, ExitCode: exitOK}
	if rep.Failures > 0 {
		res.ExitCode = exitUncorrect
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(stderr, "vlfs damage:", err)
			return exitFailure
		}
		return res.ExitCode
	}
	printDamage(stdout, &res)
	return res.ExitCode
}

func printDamage(w io.Writer, res *damageResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tdamage\tcases\tdetected\trepaired\tfiles intact\tmoved\ttruncated\tlost\treads EIO\tfailed")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Kind, r.Damage, r.Cases, r.Detected, r.Repaired, r.Intact, r.Moved, r.Truncated, r.Lost, r.Unreadable, r.Failed)
	}
	tw.Flush()
	for _, c := range res.Cases {
		for _, f := range c.Failures {
			fmt.Fprintf(w, "FAILED %s %s at block %d: %s\n", c.Kind, c.Damage, c.Addr, f)
		}
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(w, "the image has no block of: %s\n", strings.Join(res.Missing, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "not run: %s %s: %s\n", s.Kind, s.Damage, s.Reason)
	}
	fmt.Fprintf(w, "%s: %d files, %d cases, %d failed\n", res.Image, res.Files, len(res.Cases), res.Failures)
}
