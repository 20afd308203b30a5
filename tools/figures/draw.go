package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette: ours in solid colours; the paper's values in black or grey,
// dashed, so the two are told apart in print too.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

var paperColor = color.RGBA{A: 0xff}

func col(i int) color.Color { return palette[i%len(palette)] }

// newPlot makes a plot with a title and axis labels, legend top right.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.Add(plotter.NewGrid())
	return p
}

// legendRoom raises the top of the y axis so that the legend (top right)
// sits above the data instead of on it: the legend's height on canvas c,
// as a share of the plot's height, is added above the data.
func legendRoom(p *plot.Plot, c draw.Canvas) {
	lh := p.Legend.Rectangle(c).Size().Y
	ch := c.Size().Y * 0.65 // roughly the data area: title and x axis take the rest
	if lh <= 0 || ch <= lh || !(p.Y.Max > p.Y.Min) {
		return
	}
	f := float64(lh / (ch - lh))
	if _, ok := p.Y.Scale.(plot.LogScale); ok && p.Y.Min > 0 {
		p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, f)
		return
	}
	p.Y.Max += (p.Y.Max - p.Y.Min) * f
}

// xys builds points from rows, skipping NaNs, sorted by x.
func xys(rows []map[string]any, xk, yk string) plotter.XYs {
	var pts plotter.XYs
	for _, r := range rows {
		x, y := num(r, xk), num(r, yk)
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

// line adds a line with points (ours: solid).
func line(p *plot.Plot, name string, pts plotter.XYs, c color.Color) error {
	if len(pts) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.Color, s.Color = c, c
	s.Shape = draw.CircleGlyph{}
	s.Radius = vg.Points(2)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// dashed adds a dashed line without points (models, the paper's curves).
func dashed(p *plot.Plot, name string, pts plotter.XYs, c color.Color) error {
	if len(pts) == 0 { // a legend line only
		pts = plotter.XYs{}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.Color = c
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// marks adds the paper's published points: black crosses.
func marks(p *plot.Plot, name string, pts plotter.XYs) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.Color = paperColor
	s.Shape = draw.CrossGlyph{}
	s.Radius = vg.Points(5)
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// hline is a dashed horizontal reference across [x0, x1].
func hline(p *plot.Plot, name string, y, x0, x1 float64, c color.Color) error {
	return dashed(p, name, plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}, c)
}

// vline is a dashed vertical reference across [y0, y1].
func vline(p *plot.Plot, name string, x, y0, y1 float64, c color.Color) error {
	return dashed(p, name, plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}}, c)
}

// logY puts the y axis on a log scale with decade ticks.
func logY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
}

// categoryTicks labels x positions 0..n-1 with the given values, for
// sweeps whose points are not evenly spaced (idle 0, 5, ... 1000 ms).
func categoryTicks(p *plot.Plot, labels []float64) {
	var ticks plot.ConstantTicks
	for i, v := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	p.X.Tick.Marker = ticks
}

// save writes a grid of plots (rows x cols; nil cells stay empty) as
// NAME.svg and NAME.png in dir and returns "NAME.svg".
func save(dir, name string, grid [][]*plot.Plot, w, h vg.Length) (string, error) {
	for _, ext := range []string{"svg", "png"} {
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return "", err
		}
		tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]),
			PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 6,
			PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
		canvases := plot.Align(grid, tiles, draw.New(c))
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					if ext == "svg" { // once: the PNG reuses the raised axis
						legendRoom(p, canvases[i][j])
					}
					p.Draw(canvases[i][j])
				}
			}
		}
		f, err := os.Create(filepath.Join(dir, name+"."+ext))
		if err != nil {
			return "", err
		}
		if _, err := c.WriteTo(f); err != nil {
			f.Close()
			return "", err
		}
		if err := f.Close(); err != nil {
			return "", err
		}
	}
	return name + ".svg", nil
}

// one is save for a single plot.
func one(dir, name string, p *plot.Plot) (string, error) {
	return save(dir, name, [][]*plot.Plot{{p}}, 16*vg.Centimeter, 11*vg.Centimeter)
}

// row is save for plots side by side.
func row(dir, name string, ps ...*plot.Plot) (string, error) {
	return save(dir, name, [][]*plot.Plot{ps}, vg.Length(len(ps))*14*vg.Centimeter, 11*vg.Centimeter)
}
