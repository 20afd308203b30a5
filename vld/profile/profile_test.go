package profile

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	p := simProfile(t, "st19101", 3)
	data, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Meta, q.Meta) || p.Grid != q.Grid {
		t.Fatalf("meta/grid changed: %+v %+v", q.Meta, q.Grid)
	}
	for i := range p.MedianMs {
		for j := range p.MedianMs[i] {
			if math.Abs(p.MedianMs[i][j]-q.MedianMs[i][j]) > 1e-4 || math.Abs(p.MeanMs[i][j]-q.MeanMs[i][j]) > 1e-4 {
				t.Fatalf("cell %d,%d: %v/%v -> %v/%v", i, j, p.MedianMs[i][j], p.MeanMs[i][j], q.MedianMs[i][j], q.MeanMs[i][j])
			}
		}
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := Save(p, path); err != nil {
		t.Fatal(err)
	}
	if r, err := Load(path); err != nil || r.Grid != p.Grid {
		t.Fatalf("Load: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(simProfile(t, "hp97560", 1))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("fixture lacks %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not json", []byte("hello")},
		{"trailing data", append(append([]byte(nil), good...), []byte("{}")...)},
		{"unknown field", edit(`"format"`, `"colour": 1, "format"`)},
		{"wrong format", edit(`"vlfs-profile"`, `"bark"`)},
		{"wrong version", edit(`"version": 1`, `"version": 2`)},
		{"bad kind", edit(`"kind": "sim"`, `"kind": "tape"`)},
		{"bad clock", edit(`"clock": "simulated"`, `"clock": "sundial"`)},
		{"bad date", edit(`"date": "2026-11-22T12:00:00Z"`, `"date": "yesterday"`)},
		{"odd block size", edit(`"block_bytes": 4096`, `"block_bytes": 4000`)},
		{"zero repetitions", edit(`"repetitions": 1`, `"repetitions": 0`)},
		{"skips disagree", edit(`"skips": 17`, `"skips": 18`)},
		{"thinks disagree", edit(`"thinks": 13`, `"thinks": 12`)},
		{"too many cells", edit(`"skips": 17`, `"skips": 4096`)},
		{"zero think step", edit(`"think_step_ms": 0.5`, `"think_step_ms": 0`)},
		{"odd skip step", edit(`"skip_step_bytes": 4096`, `"skip_step_bytes": 1000`)},
		{"negative cell", edit(`"median_ms": [`+"\n  [\n   ", `"median_ms": [`+"\n  [\n   -1, ")},
		{"huge cell", edit(`"mean_ms": [`+"\n  [\n   ", `"mean_ms": [`+"\n  [\n   1e300, ")},
		{"missing table", edit(`"spread_ms": [`, `"unknown_ms": [`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Decode(c.data)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, %v; want ErrCorrupt", p, err)
			}
		})
	}
}

func TestGridIndex(t *testing.T) {
	g := Grid{SkipStepBytes: 4096, Skips: 5, ThinkStepMs: 0.5, Thinks: 4}
	for _, c := range []struct {
		think float64
		want  int
	}{{-1, 0}, {0, 0}, {0.2, 0}, {0.26, 1}, {1.5, 3}, {1.74, 3}, {1.76, -1}, {math.Inf(1), -1}, {math.NaN(), -1}} {
		if got := g.ThinkIndex(c.think); got != c.want {
			t.Errorf("ThinkIndex(%v) = %d, want %d", c.think, got, c.want)
		}
	}
	for _, c := range []struct {
		skip int64
		want int
	}{{-1, -1}, {0, 0}, {2047, 0}, {2048, 1}, {16384, 4}, {18431, 4}, {18432, -1}, {math.MaxInt64, -1}} {
		if got := g.SkipIndex(c.skip); got != c.want {
			t.Errorf("SkipIndex(%d) = %d, want %d", c.skip, got, c.want)
		}
	}
}

func TestSummaryOfFlatProfile(t *testing.T) {
	p := simProfile(t, "st19101", 1)
	for i := range p.MedianMs {
		for j := range p.MedianMs[i] {
			p.MedianMs[i][j], p.SpreadMs[i][j], p.MeanMs[i][j] = 0.1, 0.01, 0.1
		}
	}
	s := p.Summarize()
	if s.Gain != 0 || s.SeqGain != 0 || math.Abs(s.RelSpread-0.1) > 1e-9 || !s.Flat {
		t.Fatalf("flat profile: %+v", s)
	}
	if r := p.Row(3); r.BestSkipBytes != 0 {
		t.Fatalf("flat row picks skip %d, want the smallest", r.BestSkipBytes)
	}
}
