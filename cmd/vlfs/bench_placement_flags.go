package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vlfs/vlfs/vld"
)

// parsePlacements reads --placement: "all" (inplace, eager, lfs) or a
// comma-separated list.
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
		out = append(out, p)
	}
	return out, true
}
