package main

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// drawHostFlush is the host's floor under write+fsync (bench hostflush,
// wall clock): p10, p50 and p90 of fdatasync after each block pattern.
// Rows: pattern, blocks, runs, p10_ms, p50_ms, p90_ms, ratios.
func drawHostFlush(rs *results, dir string) (section, error) {
	reps, err := rs.get("hostflush")
	if err != nil {
		return section{}, err
	}
	r := reps[0]
	s := section{title: "The host's cost of durable 4 KiB blocks (issue 3, wall clock)", sources: sources(r)}
	pats := distinct(r.Rows, "pattern")
	p := newPlot("Write then fdatasync on the host file system", "pattern (blocks written, in runs)", "µs (wall)")
	w := vg.Points(12)
	for i, q := range []string{"p10_ms", "p50_ms", "p90_ms"} {
		var vs plotter.Values
		for _, row := range r.Rows {
			vs = append(vs, num(row, q)*1e3)
		}
		b, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return s, err
		}
		b.Color, b.LineStyle.Width = col(i), 0
		b.Offset = w * vg.Length(i-1)
		p.Add(b)
		p.Legend.Add(q[:3], b)
	}
	p.NominalX(pats...)
	img, err := save(dir, "hostflush", [][]*plot.Plot{{p}}, 16*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		return s, err
	}
	s.images = []string{img}
	s.table = mdTable(r)
	s.caption = "What the host file system under the images charges to make blocks durable: each pattern's blocks written with one pwritev per run into a zero-filled file, then fdatasync, the patterns taking turns. Pattern 1 is what a pass-through writes for a 4 KiB overwrite; 5 and 1_4 are vlfs's overwrite commit (data, leaf, double indirect, inode block, log entry) in one run and split by a live block. A FUSE file system's write+fsync costs this floor plus its FUSE round trips and CPU."
	return s, nil
}
