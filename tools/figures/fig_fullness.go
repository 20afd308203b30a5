package main

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// fullnessTable are the columns of the fullness section's table (the
// report has more: CPU per operation of every phase, fill times).
var fullnessTable = []string{
	"target", "level_pct", "used_pct", "write200k_ops_s", "write200k_x_empty", "write4k_ops_s",
	"create_ops_s", "unlink_ops_s", "cpu_ms_per_write200k", "server_cpu_ms_per_block",
	"server_cpu_per_block_x_empty", "alloc_cpu_ms_per_block", "sim_update_ms", "sim_model_ms", "sim_diff_pct",
}

// drawFullness is issue 32's fullness bench: three panels against the
// level the image was filled to. 200 KB write+fsync files/s over the same
// target's empty image (wall), with the floors; the same in files
// per second; and the simulated update latency with formula (2) dashed.
func drawFullness(rs *results, dir string) (section, error) {
	reps, err := rs.get("fullness")
	if err != nil {
		return section{}, err
	}
	r := reps[0]
	s := section{title: "Fullness: vlfs and ext4 filled to 99 % (issue 32, wall and simulated clocks)", sources: sources(r)}
	targets := distinct(r.Rows, "target")
	// x is the share in use after the fill (used_pct): a small image's
	// 99 % level is filled lower, to leave the measurement room.
	const used = "in use after the fill (% of capacity, statfs)"
	ratio := newPlot("200 KB write+fsync against the empty image", used, "files/s over the empty image's (wall)")
	rate := newPlot("200 KB write+fsync", used, "files/s (wall)")
	sim := newPlot("synchronous 4 KiB update (simulated)", "utilization (%)", "mean ms per update (simulated)")
	var model []map[string]any
	for i, t := range targets {
		rows := where(r.Rows, "target", t)
		if err := line(ratio, t, xys(rows, "used_pct", "write200k_x_empty"), col(i)); err != nil {
			return s, err
		}
		if err := line(rate, t, xys(rows, "used_pct", "write200k_ops_s"), col(i)); err != nil {
			return s, err
		}
		if pts := xys(rows, "level_pct", "sim_update_ms"); len(pts) > 0 {
			if err := line(sim, t, pts, col(i)); err != nil {
				return s, err
			}
			model = rows // the same prediction for every target
		}
	}
	if err := dashed(sim, "formula (2)", xys(model, "level_pct", "sim_model_ms"), paperColor); err != nil {
		return s, err
	}
	if err := marks(ratio, "issue 32's floors (0.7x at 80 %, 0.5x at 95 %)", fullnessFloors()); err != nil {
		return s, err
	}
	ratio.Y.Min = math.Min(ratio.Y.Min, 0)
	img, err := save(dir, "fullness", [][]*plot.Plot{{ratio, rate, sim}}, 39*vg.Centimeter, 11*vg.Centimeter)
	if err != nil {
		return s, err
	}
	s.images = []string{img}
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "target") {
			s.verdict = append(s.verdict, n+".")
		}
	}
	s.table = rowsTable(r.Rows, fullnessTable)
	s.caption = "Each target made once and filled level by level with fsync'd files of 1 B to 1 MiB, then measured at each level in the same run; ratios are to the same target's empty image. " +
		"Wall clock: every column but sim_* (vlfs on the virtual disk clock, so its figures are the software's cost; ext4 is the kernel's over a loop device). " +
		"Simulated clock: sim_* (bench updates' eager points at the level's utilisation, against formula (2): overhead + transfer + locate). " +
		"The table is part of the report (`vlfs bench show` prints all of it, with CPU per operation of every phase); its notes say how each column is measured."
	return s, nil
}

// fullnessFloors are the targets for the 200 KB ratio.
func fullnessFloors() plotter.XYs { return plotter.XYs{{X: 80, Y: 0.7}, {X: 95, Y: 0.5}} }
