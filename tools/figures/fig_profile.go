package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawProfile is issue 8's profile plot: a write-cost map (median ms by
// skip distance and think time) of each profile reported by `vlfs bench
// headmodels --workload profile`, with the cheapest skip of each think
// time marked: what the profiled head reads its placements from.
func drawProfile(rs *results, dir string) (section, error) {
	reps, err := rs.get("headmodels-profile")
	if err != nil {
		return section{}, err
	}
	s := section{title: "A profile: write cost by skip and think time (issue 8; Bark, range-writes paper section 6)", sources: sources(reps...)}
	var imgs []string
	for k, r := range reps {
		g, err := newCellGrid(r.Rows)
		if err != nil {
			return s, fmt.Errorf("%s: %w", r.File, err)
		}
		name := r.diskName()
		p := newPlot(fmt.Sprintf("%s: median ms per write (%s clock; %.2f..%.2f ms)", name, r.Clock, g.min, g.max),
			"skip after the previous write, KiB", "think time, ms")
		cm := moreland.ExtendedBlackBody()
		h := plotter.NewHeatMap(g, cm.Palette(64))
		p.Add(h)
		var best plotter.XYs
		for _, row := range r.Rows {
			if num(row, "best_in_row") == 1 {
				best = append(best, plotter.XY{X: num(row, "skip_kib"), Y: num(row, "think_ms")})
			}
		}
		sc, err := plotter.NewScatter(best)
		if err != nil {
			return s, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2.5)
		sc.GlyphStyle.Color = palette[6]
		p.Add(sc) // explained in the caption: a legend would cover cells
		file := fmt.Sprintf("headmodels-profile-%d", k+1)
		if n := fileSafe(name); n != "" {
			file = "headmodels-profile-" + n
		}
		img, err := one(dir, file, p)
		if err != nil {
			return s, err
		}
		imgs = append(imgs, img)
		if pr, ok := r.Params["profile"].(map[string]any); ok {
			verdict := "position-dependent: the head has something to use"
			if b, _ := pr["flat"].(bool); b {
				verdict = "flat: the head prices every cell alike and writes in address order"
			}
			s.verdict = append(s.verdict, fmt.Sprintf("%s (%s clock, %v repetitions): cells %.3f / %.3f / %.3f ms (min / median / max); the cheapest skip saves %.0f %% of a row's median, noise %.0f %%: %s.",
				name, r.Clock, pr["repetitions"], num(pr, "min_ms"), num(pr, "median_ms"), num(pr, "max_ms"), 100*num(pr, "gain"), 100*num(pr, "rel_spread"), verdict))
		}
	}
	s.images = imgs
	s.caption = "Each cell: the median time of a 4 KiB synchronous write issued `think` ms after the previous write completed and `skip` KiB past its end (black cheap, white dear). On a simulated disk the diagonals are the rotation: the longer the think time, the further the platter has turned and the further on the cheapest block lies, until it wraps after one revolution. Cyan dots: the cheapest skip of each think time, which is where the profiled head places a write when that block is free. Simulated clock for sim: profiles, wall clock for a file's."
	return s, nil
}

// cellGrid is a report's cells as a plotter.GridXYZ of median_ms.
type cellGrid struct {
	xs, ys   []float64 // skip KiB (columns), think ms (rows), ascending
	z        map[[2]float64]float64
	min, max float64
}

func newCellGrid(rows []map[string]any) (*cellGrid, error) {
	g := &cellGrid{z: map[[2]float64]float64{}, min: math.Inf(1), max: math.Inf(-1)}
	xs, ys := map[float64]bool{}, map[float64]bool{}
	for _, r := range rows {
		x, y, v := num(r, "skip_kib"), num(r, "think_ms"), num(r, "median_ms")
		if math.IsNaN(x) || math.IsNaN(y) || math.IsNaN(v) {
			return nil, fmt.Errorf("a row without skip_kib, think_ms or median_ms")
		}
		xs[x], ys[y] = true, true
		g.z[[2]float64{x, y}] = v
		g.min, g.max = math.Min(g.min, v), math.Max(g.max, v)
	}
	for x := range xs {
		g.xs = append(g.xs, x)
	}
	for y := range ys {
		g.ys = append(g.ys, y)
	}
	sort.Float64s(g.xs)
	sort.Float64s(g.ys)
	if len(g.xs) < 2 || len(g.ys) < 2 {
		return nil, fmt.Errorf("%d x %d cells: too few to plot", len(g.xs), len(g.ys))
	}
	return g, nil
}

func (g *cellGrid) Dims() (c, r int) { return len(g.xs), len(g.ys) }
func (g *cellGrid) X(c int) float64  { return g.xs[c] }
func (g *cellGrid) Y(r int) float64  { return g.ys[r] }
func (g *cellGrid) Z(c, r int) float64 {
	v, ok := g.z[[2]float64{g.xs[c], g.ys[r]}]
	if !ok {
		return math.NaN()
	}
	return v
}

// fileSafe makes a profile's target (sim:st19101, /dev/sdb, a path) usable
// in a file name: runs of anything but letters, digits, '.', '_' and '-'
// become one '-', trimmed at both ends ("sim:st19101" -> "sim-st19101").
func fileSafe(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return strings.Trim(b.String(), ".-")
}
