package disk

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/disks/<preset>.json from the presets")

const disksDir = "../../testdata/disks"

// TestPresetFiles keeps testdata/disks/<preset>.json identical to the
// presets (regenerate with go test -run TestPresetFiles -rewrite).
func TestPresetFiles(t *testing.T) {
	for _, name := range PresetNames() {
		m := mustPreset(t, name)
		path := filepath.Join(disksDir, name+".json")
		if *rewrite {
			b, err := m.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%s differs from preset %s (run with -rewrite)", path, name)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, name := range PresetNames() {
		m := mustPreset(t, name)
		b, err := m.JSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("%s: round trip changed the model", name)
		}
	}
}

// TestValidateNamesField mutates a valid model and checks that the error
// wraps ErrInvalidModel and names the field.
func TestValidateNamesField(t *testing.T) {
	cases := []struct {
		field string
		mut   func(m *Model)
	}{
		{"name", func(m *Model) { m.Name = "" }},
		{"rpm", func(m *Model) { m.RPM = 0 }},
		{"rpm", func(m *Model) { m.RPM = -4002 }},
		{"rpm", func(m *Model) { m.RPM = math.NaN() }},
		{"cylinders", func(m *Model) { m.Cylinders = 0 }},
		{"surfaces", func(m *Model) { m.Surfaces = -1 }},
		{"zones", func(m *Model) { m.Zones = nil }},
		{"zones[0].first_cyl", func(m *Model) { m.Zones[0].FirstCyl = 1 }},
		{"zones[1].first_cyl", func(m *Model) { m.Zones[1].FirstCyl++ }}, // gap
		{"zones[0].last_cyl", func(m *Model) { m.Zones[0].LastCyl = -1 }},
		{"zones[7].last_cyl", func(m *Model) { m.Zones[7].LastCyl = 2000 }}, // short of the disk
		{"zones[7].last_cyl", func(m *Model) { m.Zones[7].LastCyl = 3000 }}, // past the disk
		{"zones[2].sectors_per_track", func(m *Model) { m.Zones[2].SectorsPerTrack = 0 }},
		{"zones[3].track_skew", func(m *Model) { m.Zones[3].TrackSkew = m.Zones[3].SectorsPerTrack }},
		{"zones[4].cyl_skew", func(m *Model) { m.Zones[4].CylSkew = -1 }},
		{"head_switch_ms", func(m *Model) { m.HeadSwitchMs = -0.1 }},
		{"write_overhead_ms", func(m *Model) { m.WriteOverheadMs = math.Inf(1) }},
		{"read_overhead_ms", func(m *Model) { m.ReadOverheadMs = -1 }},
		{"write_settle_ms", func(m *Model) { m.WriteSettleMs = math.NaN() }},
		{"seek.min_ms", func(m *Model) { m.Seek.MinMs = -3 }},
		{"seek.table_ms[2]", func(m *Model) { m.Seek.Table[2] = -1 }},
		{"seek.table_ms", func(m *Model) { m.Seek.Table = make([]float64, 2051) }},
		{"seek.boundary", func(m *Model) { m.Seek.Boundary = -5 }},
		{"seek.short_b_ms", func(m *Model) { m.Seek.ShortB = math.NaN() }},
		{"seek.short_a_ms/short_b_ms", func(m *Model) { m.Seek.ShortA = -10 }},
		{"seek.long_a_ms/long_b_ms", func(m *Model) { m.Seek.LongB = -1 }},
	}
	for _, c := range cases {
		m := mustPreset(t, "hpc2247a")
		c.mut(m)
		err := m.Validate()
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("field %s: got %v", c.field, err)
		}
	}
}

// TestParseErrors covers the decoder's strictness and the invalid files.
func TestParseErrors(t *testing.T) {
	good, err := mustPreset(t, "hp97560").JSON()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, data, want string
	}{
		{"unknown field", strings.Replace(string(good), `"rpm"`, `"rpms": 1, "rpm"`, 1), `unknown field "rpms"`},
		{"wrong type", strings.Replace(string(good), `"rpm": 4002`, `"rpm": "fast"`, 1), "rpm"},
		{"trailing", string(good) + "{}", "trailing data"},
		{"empty", "", "invalid disk model"},
		{"not an object", "[1,2]", "invalid disk model"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.data))
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	files := map[string]string{
		"invalid-zero-rpm.json":        "rpm:",
		"invalid-zone-gap.json":        "zones[1].first_cyl:",
		"invalid-unknown-field.json":   `unknown field "seek_ms"`,
		"invalid-negative-switch.json": "head_switch_ms:",
	}
	for f, want := range files {
		_, err := Load(filepath.Join(disksDir, f))
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", f, err, want)
		}
	}
}

func TestResolve(t *testing.T) {
	if m, err := Resolve("st19101"); err != nil || m.Name != "st19101" {
		t.Fatalf("preset: %v %v", m, err)
	}
	if m, err := Resolve(filepath.Join(disksDir, "small-example.json")); err != nil || m.Name != "small-example" {
		t.Fatalf("file: %v %v", m, err)
	}
	_, err := Resolve("no-such-disk")
	if !errors.Is(err, ErrUnknownPreset) || !strings.Contains(err.Error(), "hp97560") {
		t.Errorf("missing: %v", err)
	}
	_, err = Preset("nope")
	if !errors.Is(err, ErrUnknownPreset) || !strings.Contains(err.Error(), "carson-setia, hp97560, hpc2247a, st19101") {
		t.Errorf("Preset: %v", err)
	}
}
