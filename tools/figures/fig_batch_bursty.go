package main

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// batchVariant is one of the batching paper's Figures 3-6: its arrivals
// variant in the batch report and the panel's title.
type batchVariant struct{ arrivals, title string }

// batchVariants are the figures drawn beside Figure 2, in the paper's order.
var batchVariants = []batchVariant{
	{"hyperexp-reads", "(c) bursty reads (Figure 3)"},
	{"hyperexp-writes", "(d) bursty writes (Figure 4)"},
	{"zero-seek", "(e) zero-seeks (Figure 5)"},
	{"zero-seek-hyperexp-reads", "(f) zero-seeks, bursty reads (Figure 6 B)"},
}

// drawBatchBursty draws the model experiment's other arrival variants, as
// the paper's Figures 3-6: each load's simulated curve (solid) beside the
// Poisson curve at the same read and write loads where the report has one
// (dashed), batch sizes up to 16, c* marked. Its verdict is the bench's
// own note on each curve's optimum. It returns "" when the report holds
// none of them (a run with --arrivals poisson).
func drawBatchBursty(r *report, dir string, cstar float64) (string, []string, error) {
	model := where(r.Rows, "experiment", "model")
	var panels []*plot.Plot
	var verdict []string
	for _, v := range batchVariants {
		rows := where(model, "arrivals", v.arrivals)
		if len(rows) == 0 {
			continue
		}
		p := newPlot(v.title, "write batch size (8 KB blocks)", "mean read response, ms (simulated)")
		lo, hi := math.Inf(1), 0.0
		for i, l := range distinct(rows, "load") {
			lr := where(rows, "load", l)
			pts := upTo(xys(lr, "batch_blocks", "read_mean_ms"), 16)
			for _, q := range pts {
				lo, hi = math.Min(lo, q.Y), math.Max(hi, q.Y)
			}
			name := fmt.Sprintf("load %s (rho_r %g, rho_w %g)", l, num(lr[0], "rho_r"), num(lr[0], "rho_w"))
			if err := line(p, name, pts, col(i)); err != nil {
				return "", nil, err
			}
			if ref := samePoissonLoad(model, lr[0]); len(ref) > 0 {
				if err := dashed(p, "Poisson, same loads", upTo(xys(ref, "batch_blocks", "read_mean_ms"), 16), col(i)); err != nil {
					return "", nil, err
				}
			}
		}
		if err := vline(p, fmt.Sprintf("c* = %.2f", cstar), cstar, lo, hi, col(7)); err != nil {
			return "", nil, err
		}
		panels = append(panels, p)
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "model "+v.arrivals+" load ") {
				verdict = append(verdict, strings.TrimPrefix(n, "model "))
			}
		}
	}
	if len(panels) == 0 {
		return "", nil, nil
	}
	for _, p := range panels {
		p.Legend.Top = true
		p.Legend.ThumbnailWidth = vg.Points(14)
	}
	img, err := row(dir, "batch-bursty", panels...)
	return img, verdict, err
}

// samePoissonLoad is the Poisson model curve at the read and write loads
// of row, if the report has one.
func samePoissonLoad(model []map[string]any, row map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range where(model, "arrivals", "poisson") {
		if num(r, "rho_r") == num(row, "rho_r") && num(r, "rho_w") == num(row, "rho_w") {
			out = append(out, r)
		}
	}
	return out
}
