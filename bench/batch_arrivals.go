package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Arrival variants of the model experiment, one per figure of the
// batching paper. Figures 3 and 6 make only the reads bursty and run at
// loads of their own; Figure 4 makes only the writes bursty. The paper's
// finding is that bursty reads push the optimum batch below c*, while
// bursty writes change little (the cache smooths them until the update
// interval's pulse), and zero-seeks push it lower still.
const (
	ArrivalsPoisson            = "poisson"                  // Figure 2: the analytic model's assumptions
	ArrivalsHyperReads         = "hyperexp-reads"           // Figure 3: reads hyperexponential, C_a^2 = 5
	ArrivalsHyperWrites        = "hyperexp-writes"          // Figure 4: writes hyperexponential
	ArrivalsZeroSeek           = "zero-seek"                // Figure 5: Poisson, no seek for a write batch after a write
	ArrivalsZeroSeekHyperReads = "zero-seek-hyperexp-reads" // Figure 6 B: both of the above
	ArrivalsHyperexp           = "hyperexp"                 // reads and writes hyperexponential (the paper's text; no figure)
)

// arrivalVariant is how one variant draws arrivals and services, and the
// loads its figure runs at (nil: the configured loads, A-D by default).
type arrivalVariant struct {
	name                    string
	figure                  string
	hyperReads, hyperWrites bool
	zeroSeek                bool
	loads                   []BatchLoad
}

// arrivalVariants is every variant, the defaults first in figure order.
func arrivalVariants() []arrivalVariant {
	return []arrivalVariant{
		{name: ArrivalsPoisson, figure: "Figure 2"},
		{name: ArrivalsHyperReads, figure: "Figure 3", hyperReads: true,
			loads: []BatchLoad{{"3a", 0.2, 0.2}, {"3b", 0.4, 0.2}}},
		{name: ArrivalsHyperWrites, figure: "Figure 4", hyperWrites: true},
		{name: ArrivalsZeroSeek, figure: "Figure 5", zeroSeek: true},
		{name: ArrivalsZeroSeekHyperReads, figure: "Figure 6", zeroSeek: true, hyperReads: true,
			loads: []BatchLoad{{"6a", 0.6, 0.2}, {"6b", 0.2, 0.6}}},
		{name: ArrivalsHyperexp, hyperReads: true, hyperWrites: true},
	}
}

// DefaultArrivals are the variants Batch runs unless told otherwise: one
// per figure of the paper.
func DefaultArrivals() []string {
	var names []string
	for _, v := range arrivalVariants() {
		if v.figure != "" {
			names = append(names, v.name)
		}
	}
	return names
}

// arrivalVariantNamed returns the variant called name.
func arrivalVariantNamed(name string) (arrivalVariant, error) {
	vs := arrivalVariants()
	if i := slices.IndexFunc(vs, func(v arrivalVariant) bool { return v.name == name }); i >= 0 {
		return vs[i], nil
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
	}
	return arrivalVariant{}, fmt.Errorf("unknown arrivals %q (want %s)", name, strings.Join(names, ", "))
}

// loadsFor is the loads the variant runs at.
func (v arrivalVariant) loadsFor(configured []BatchLoad) []BatchLoad {
	if v.loads != nil {
		return v.loads
	}
	return configured
}

// optimumNote says where a curve's simulated minimum lies against c* and
// against formula (4)'s optimum at the same load (Poisson arrivals, which
// the simulation matches within 0.3 %): the comparison the paper draws
// for each figure. poissonC is formula (4)'s best batch (0: none has a
// steady state).
func optimumNote(v arrivalVariant, l BatchLoad, best float64, bestC, poissonC int, cstar float64) string {
	fig := ""
	if v.figure != "" {
		fig = " (" + v.figure + ")"
	}
	s := fmt.Sprintf("model %s load %s%s: simulated minimum %.2f ms at batch %d (c* = %.2f", v.name, l.Name, fig, best, bestC, cstar)
	if v.name == ArrivalsPoisson || poissonC == 0 {
		return s + ")"
	}
	shift := "the same batch"
	switch d := bestC - poissonC; {
	case d < 0:
		shift = fmt.Sprintf("%d lower", -d)
	case d > 0:
		shift = fmt.Sprintf("%d higher", d)
	}
	return s + fmt.Sprintf("; formula (4) with Poisson arrivals at this load: batch %d, so %s)", poissonC, shift)
}
