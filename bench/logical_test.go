package bench

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
)

func TestLogicalConfigRefusals(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		cfg  LogicalConfig
		want error
	}{
		{"no model", LogicalConfig{}, disk.ErrInvalidModel},
		{"utilization too high", LogicalConfig{Model: m, Utilizations: []float64{0.95}}, vld.ErrInvalid},
		{"utilization zero", LogicalConfig{Model: m, Utilizations: []float64{0}}, vld.ErrInvalid},
		{"bad sync", LogicalConfig{Model: m, Sync: "msync"}, vld.ErrInvalid},
		{"bad driver", LogicalConfig{Model: m, Driver: "dd"}, ErrUnavailable},
		{"bad upper", LogicalConfig{Model: m, Upper: "xfs"}, ErrUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Logical(c.cfg); !errors.Is(err, c.want) {
				t.Fatalf("Logical = %v, want %v", err, c.want)
			}
		})
	}
}

// TestLogicalSmall runs the whole benchmark on a small disk: every row is
// there, in the report's shape, and eager placement beats update in place.
func TestLogicalSmall(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	cfg := LogicalConfig{Model: m, DiskBytes: 32 << 20, Writes: 40, Utilizations: []float64{0.5}, Seed: 3, Logf: t.Logf}
	rep, err := Logical(cfg)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bench != "logical" || rep.Clock != ClockSimulated || len(rep.Rows) != 5 {
		t.Fatalf("report %q, clock %q, %d rows; want logical, simulated, 3 layers + 2 points", rep.Bench, rep.Clock, len(rep.Rows))
	}
	for _, row := range rep.Rows[:3] {
		if ms, _ := row["wall_median_ms"].(float64); ms <= 0 {
			t.Errorf("layer row without a wall time: %v", row)
		}
	}
	inplace, eager := rep.Rows[3], rep.Rows[4]
	if inplace["placement"] != "inplace" || eager["placement"] != "eager" {
		t.Fatalf("point rows: %v / %v", inplace["placement"], eager["placement"])
	}
	in, eg := inplace["sim_ms_per_write"].(float64), eager["sim_ms_per_write"].(float64)
	if eg <= 0 || in <= eg*1.5 {
		t.Errorf("simulated ms per write: in place %.3f, eager %.3f; want eager clearly faster", in, eg)
	}
	if up, _ := eager["speedup"].(float64); up != in/eg {
		t.Errorf("speedup %v, want %v", up, in/eg)
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"sim_ms_per_write"`) {
		t.Fatalf("JSON: %v %s", err, b)
	}
}
