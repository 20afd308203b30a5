package main

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// drawPeers is issue 9 section 3: the same workloads against the host's
// file system, fuse2fs, a go-fuse loopback and vlfs, wall clock. Rows:
// target, workload, ops_s, mb_s, p50_ms, p99_ms (plus ratios).
func drawPeers(rs *results, dir string) (section, error) {
	reps, err := rs.get("peers")
	if err != nil {
		return section{}, err
	}
	r := reps[0]
	s := section{title: "Peers side by side (issue 9 section 3, wall clock)", sources: sources(r)}
	workloads := distinct(r.Rows, "workload")
	targets := distinct(r.Rows, "target")
	ops := newPlot("Throughput relative to the host file system", "", "ops/s / native's ops/s (wall)")
	lat := newPlot("Median latency relative to the host file system (log)", "", "p50 / native's p50 (wall)")
	w := vg.Points(9)
	for i, t := range targets {
		for _, pk := range []struct {
			p *plot.Plot
			k string
		}{{ops, "ops_s"}, {lat, "p50_ms"}} {
			var vs plotter.Values
			for _, wl := range workloads {
				v := relative(r.Rows, t, wl, pk.k)
				if pk.p == lat && v > 0 {
					v = math.Log10(v) // latencies span 1000x: bars of the log, up = slower
				}
				vs = append(vs, v)
			}
			b, err := plotter.NewBarChart(vs, w)
			if err != nil {
				return s, err
			}
			b.Color, b.LineStyle.Width = col(i), 0
			b.Offset = w * vg.Length(float64(i)-float64(len(targets)-1)/2)
			pk.p.Add(b)
			pk.p.Legend.Add(t, b)
		}
	}
	lat.Y.Tick.Marker = decadeRatioTicks{}
	ops.NominalX(workloads...)
	lat.NominalX(workloads...)
	for _, p := range []*plot.Plot{ops, lat} {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = -0.9
	}
	img, err := save(dir, "peers", [][]*plot.Plot{{ops}, {lat}}, vg.Length(max(16, 3*len(workloads)))*vg.Centimeter, 22*vg.Centimeter)
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
	s.caption = "Each workload run one after another on this machine against each target; bars absent where a target did not run or measured 0. Wall clock, each target relative to the host's own file system (native = 1); the vlfs target runs its disk on the virtual clock, so its figures are the software's cost, not a disk's. The table below is the whole report, with the ratios to each peer (ops_x_P: ops/s over P's, p50_x_P: p50 over P's)."
	return s, nil
}

// relative is a target's metric over the native target's for one
// workload (over the largest target's when native did not run); 0 when
// either is missing, so the bar is simply absent.
func relative(rows []map[string]any, target, workload, k string) float64 {
	mine := where(rows, "target", target, "workload", workload)
	if len(mine) != 1 || !(num(mine[0], k) > 0) {
		return 0
	}
	ref := 0.0
	if nat := where(rows, "target", "native", "workload", workload); len(nat) == 1 {
		ref = num(nat[0], k)
	}
	if !(ref > 0) {
		for _, r := range where(rows, "workload", workload) {
			ref = math.Max(ref, num(r, k))
		}
	}
	return num(mine[0], k) / ref
}

// decadeRatioTicks labels a log10 axis with the ratios: 0.1x, 1x, 10x...
type decadeRatioTicks struct{}

func (decadeRatioTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		ts = append(ts, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(10, e), 'g', -1, 64) + "x"})
	}
	return ts
}
