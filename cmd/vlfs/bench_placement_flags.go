package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/profile"
)

// logicalPlacements are the placements a logical disk runs, the
// simulated benchmarks' "all".
var logicalPlacements = []vld.Placement{vld.PlaceInPlace, vld.PlaceEager, vld.PlaceLFS}

// parsePlacements reads --placement: "all" (the given list) or a
// comma-separated list, each of which must be in all: a placement the
// benchmark cannot run is rejected with the list it can.
func parsePlacements(cmd, s string, all []vld.Placement, stderr io.Writer) ([]vld.Placement, bool) {
	if s == "all" || s == "" {
		return all, true
	}
	var out []vld.Placement
	for _, f := range strings.Split(s, ",") {
		p, err := vld.ParsePlacement(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(stderr, "vlfs %s: --placement: %v\n", cmd, err)
			return nil, false
		}
		if !slices.Contains(all, p) {
			fmt.Fprintf(stderr, "vlfs %s: --placement %v: this benchmark runs %s\n", cmd, p, placementList(all))
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// placementList is "a, b or c".
func placementList(ps []vld.Placement) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.String())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// rejectPlacement handles --placement on a benchmark that measures the
// disk or the VLD's own mechanisms, not a placement policy: eager (the
// default) is accepted, anything else refused with a reason.
func rejectPlacement(cmd, s, why string, stderr io.Writer) bool {
	p, err := vld.ParsePlacement(strings.TrimSpace(s))
	if err != nil {
		fmt.Fprintf(stderr, "vlfs %s: --placement: %v\n", cmd, err)
		return false
	}
	if p != vld.PlaceEager {
		fmt.Fprintf(stderr, "vlfs %s: --placement %v: %s; only eager applies\n", cmd, p, why)
		return false
	}
	return true
}

// benchHead reads a benchmark's --head with mount's and mkfs's parser
// (parseHead): nil is the simulated head. A bad value is a usage error,
// reported as cmd's.
func benchHead(cmd, s string, stderr io.Writer) (*profile.Profile, bool) {
	p, err := parseHead(s)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs %s: %v\n", cmd, err)
		return nil, false
	}
	return p, true
}
