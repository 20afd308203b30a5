package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs"
)

// The vlfs row of bench updates and breakdown (issue 33): --placement
// takes vlfs beside the logical disk's placements, and --fs-version the
// file-system version that row makes.

// updatesRows is what --placement selects in bench updates and breakdown:
// the logical disk's placements, and whether the vlfs row runs.
type updatesRows struct {
	placements []vld.Placement
	vlfs       bool
	version    uint32 // --fs-version, of the vlfs row
}

// vlfsRows defines bench updates' and breakdown's --placement and
// --fs-version, which parse reads into the rows returned.
func (b *benchFlags) vlfsRows(def, usage string) *updatesRows {
	place := b.fl.String("placement", def, usage)
	version := b.fsVersion(fsVersionUsage)
	rows := new(updatesRows)
	b.checks = append(b.checks, func() bool {
		var ok bool
		if *rows, ok = parseUpdatesRows(b.cmd(), *place, b.stderr); ok {
			rows.version, ok = checkFSVersion(b, *version, *rows)
		}
		return ok
	})
	return rows
}

// parseUpdatesRows reads that --placement: "all" (every logical-disk
// placement and vlfs) or a comma-separated list of them. vlfs is not a
// vld placement, so it is taken out before parsePlacements sees the rest.
func parseUpdatesRows(cmd, s string, stderr io.Writer) (updatesRows, bool) {
	if s == "all" || s == "" {
		return updatesRows{placements: logicalPlacements, vlfs: true}, true
	}
	var r updatesRows
	var rest []string
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == bench.PlaceVLFS {
			r.vlfs = true
			continue
		}
		rest = append(rest, f)
	}
	if len(rest) == 0 {
		return r, true
	}
	ps, ok := parsePlacements(cmd, strings.Join(rest, ","), logicalPlacements, stderr)
	if !ok {
		fmt.Fprintf(stderr, "vlfs %s: --placement also takes %s (the file system on the eager VLD)\n", cmd, bench.PlaceVLFS)
		return r, false
	}
	r.placements = ps
	return r, true
}

// fsVersionUsage is --fs-version's help in bench updates and breakdown.
const fsVersionUsage = "file-system version of the vlfs row (0: vlfs mkfs's default)"

// checkFSVersion refuses --fs-version when no vlfs row runs (it would
// be silently ignored) or when it does not fit mkfs's version field.
func checkFSVersion(b *benchFlags, v uint, rows updatesRows) (uint32, bool) {
	switch {
	case b.set("fs-version") && !rows.vlfs:
		b.usageErr("--fs-version applies to the %s row, which --placement leaves out", bench.PlaceVLFS)
		return 0, false
	case v > math.MaxUint32:
		b.usageErr("--fs-version %d: out of range", v)
		return 0, false
	}
	return uint32(v), true
}

// updatesReport reports a run of bench updates or breakdown: a
// file-system version mkfs refuses is a usage error (it fails before any
// row is measured), anything else as report says.
func updatesReport(b *benchFlags, rep *bench.Report, err error) int {
	if errors.Is(err, vlfs.ErrInvalid) {
		return b.usageErr("--fs-version: %v", err)
	}
	return b.report(rep, err)
}
