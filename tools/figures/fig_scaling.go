package main

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// drawScaling is issue 31's thread scaling (bench scaling, wall clock):
// ops/s against client threads for varmail and oltp, a line per target.
// Rows: target, workload, threads, ops_s, p50_ms, p99_ms, ratios.
func drawScaling(rs *results, dir string) (section, error) {
	reps, err := rs.get("scaling")
	if err != nil {
		return section{}, err
	}
	r := reps[0]
	s := section{title: "Thread scaling against the peers (issue 31, wall clock)", sources: sources(r)}
	var plots []*plot.Plot
	for _, wl := range distinct(r.Rows, "workload") {
		p := newPlot(wl, "client threads (log 2)", "ops/s (wall)")
		p.X.Scale = plot.LogScale{}
		var ticks plot.ConstantTicks
		for _, n := range distinctNum(r.Rows, "threads") {
			ticks = append(ticks, plot.Tick{Value: n, Label: fmt.Sprint(n)})
		}
		p.X.Tick.Marker = ticks
		for i, t := range distinct(r.Rows, "target") {
			if err := line(p, t, xys(where(r.Rows, "target", t, "workload", wl), "threads", "ops_s"), col(i)); err != nil {
				return s, err
			}
		}
		plots = append(plots, p)
	}
	img, err := save(dir, "scaling", [][]*plot.Plot{plots}, vg.Length(12*len(plots))*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		return s, err
	}
	s.images = []string{img}
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "target") {
			s.verdict = append(s.verdict, n+".")
		}
	}
	s.table = mdTable(r)
	s.caption = "Each target made once, then varmail and oltp run at each thread count in turn, one timed point each; vlfs on the virtual disk clock, so its figures are the software's cost. varmail at N threads is filebench's varmail with N threads; oltp at N has N shadow readers, max(1, N/20) database writers and one log writer (oltp.f's proportions). The table is the whole report, with each row's ratio to the loopback and to the host file system at the same thread count."
	return s, nil
}
