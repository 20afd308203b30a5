package main

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// drawHeadModels is issue 8's validation: mean update latency with the
// oracle, profiled (Bark) and no head model, per utilisation and disk,
// and the journal demonstration beside Bark's Table 3.
func drawHeadModels(rs *results, dir string) (section, error) {
	reps, err := rs.get("headmodels")
	if err != nil {
		return section{}, err
	}
	s := section{title: "Profiled head (issue 8; range-writes paper, section 6)", sources: sources(reps...)}
	var panels []*plot.Plot
	for _, r := range reps {
		p := newPlot(r.diskName()+": head models", "utilization", "mean ms per synchronous 4 KiB update (simulated)")
		utils := distinctNum(r.Rows, "utilization")
		heads := distinct(r.Rows, "head")
		w := vg.Points(16)
		for i, h := range heads {
			var vs plotter.Values
			for _, u := range utils {
				rows := whereNum(where(r.Rows, "head", h), "utilization", u)
				v := math.NaN()
				if len(rows) == 1 {
					v = num(rows[0], "mean_ms")
				}
				vs = append(vs, v)
			}
			b, err := plotter.NewBarChart(vs, w)
			if err != nil {
				return s, err
			}
			b.Color, b.LineStyle.Width = col(i), 0
			b.Offset = w * vg.Length(float64(i)-float64(len(heads)-1)/2)
			p.Add(b)
			p.Legend.Add(h, b)
		}
		var labels []string
		for _, u := range utils {
			labels = append(labels, fmt.Sprintf("%g %%", u*100))
		}
		p.NominalX(labels...)
		panels = append(panels, p)
		for _, row := range where(r.Rows, "head", "profile") {
			sh := num(row, "share_of_oracle_reduction")
			s.verdict = append(s.verdict, fmt.Sprintf("%s at %g %%: the profiled head gets %.0f %% of the oracle's reduction (%.2f ms vs oracle %s, none %s; target >= 80 %%: %s).",
				r.diskName(), num(row, "utilization")*100, sh*100, num(row, "mean_ms"), headMs(r, "oracle", row), headMs(r, "none", row), metWord(sh >= 0.8)))
		}
	}
	img, err := row(dir, "headmodels", panels...)
	if err != nil {
		return s, err
	}
	s.images = []string{img}
	if js, err := rs.get("headmodels-journal"); err == nil {
		img, v, err := drawJournal(js[0], dir)
		if err != nil {
			return s, err
		}
		s.images = append(s.images, img)
		s.verdict = append(s.verdict, v...)
		s.sources = append(s.sources, js[0].File)
	}
	hostNote := ""
	if hs, err := rs.get("headmodels-host"); err == nil {
		s.table = mdTable(hs[0])
		s.sources = append(s.sources, hs[0].File)
		hostNote = " The table is another run, not simulated: the same three heads on this machine's own storage (a real file, O_DIRECT, one fdatasync per update), wall clock."
	}
	s.caption = "Random synchronous 4 KiB updates with three head models on the same simulated disk: the oracle (the simulator's own head position), the profiled head (only a measured skip x think-time table, as Bark), and none (update in place). Second figure: the journal demonstration, speed-up of synchronous appends over a plain sequential journal against think time, beside Bark's TPC-B result (Table 3, cached: 61.9 %). Figures: simulated clock." + hostNote
	return s, nil
}

func headMs(r *report, head string, like map[string]any) string {
	rows := whereNum(where(r.Rows, "head", head), "utilization", num(like, "utilization"))
	if len(rows) != 1 {
		return "?"
	}
	return fmt.Sprintf("%.2f ms", num(rows[0], "mean_ms"))
}

// drawJournal: speed-up over the sequential journal per think time.
func drawJournal(r *report, dir string) (string, []string, error) {
	p := newPlot("Journal appends (Bark-style log skipping)", "mean think time, ms", "speed-up over the sequential journal")
	var v []string
	plain := where(r.Rows, "set", "")
	for i, l := range []string{"profile", "oracle"} {
		if err := line(p, l, xys(where(plain, "layout", l), "think_mean_ms", "speedup_vs_sequential"), col(i+1)); err != nil {
			return "", nil, err
		}
	}
	t3 := where(r.Rows, "set", "table3", "layout", "profile")
	if len(t3) == 1 {
		x := num(t3[0], "think_mean_ms")
		if err := marks(p, "paper Table 3 (cached): +61.9 %", plotter.XYs{{X: x, Y: barkCachedSpeedup}}); err != nil {
			return "", nil, err
		}
		if err := line(p, "ours at Table 3's think time (profile)", plotter.XYs{{X: x, Y: num(t3[0], "speedup_vs_sequential")}}, col(3)); err != nil {
			return "", nil, err
		}
		v = append(v, fmt.Sprintf("Journal at Table 3's think ratio (%.1f ms): the profiled head is %.0f %% faster than sequential appends, the paper's Bark %.1f %% (cached TPC-B): %s.",
			x, num(t3[0], "speedup_vs_sequential")*100, barkCachedSpeedup*100, map[bool]string{true: "as good or better", false: "below the paper"}[num(t3[0], "speedup_vs_sequential") >= barkCachedSpeedup]))
	}
	img, err := one(dir, "headmodels-journal", p)
	return img, v, err
}
