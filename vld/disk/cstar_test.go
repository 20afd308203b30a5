package disk

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestCStarWorkedExample pins Carson and Setia's example: D = 23.75 ms,
// sigma^2 = 44.2305 ms^2, k = 4 ms per 8 KB block give c* = 6.17 and the
// best whole batch is 6 (their Figure 2(b) shows 6 or 7).
func TestCStarWorkedExample(t *testing.T) {
	c, err := CStar(23.75, 44.2305, 4)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c-6.17) > 0.005 {
		t.Errorf("c* = %v, want 6.17", c)
	}
	if b := BestBatch(c, 23.75, 44.2305, 4); b != 6 {
		t.Errorf("best batch %d, want 6", b)
	}
}

// TestCStarTable1 pins Table 1 of the batching paper: c* in KB (1024 B)
// from mean/variance of seek and rotation and the transfer rate in MB/s
// (1e6 B/s), and the realized rate c*/(D + c* k), which the paper prints
// to two significant figures (1.20, 1.10, 1.3).
func TestCStarTable1(t *testing.T) {
	cases := []struct {
		disk                     string
		seek, seekVar, rot, rotV float64
		rateMBs                  float64
		wantKB                   float64
		wantRealized             float64
	}{
		{"IBM 0663-H12", 14.40, 18.90, 6.95, 16.10, 2.40, 52, 1.2},
		{"HP 97549", 24.90, 61.60, 7.47, 18.60, 2.20, 72, 1.1},
		{"Fujitsu M2266S/H", 21.1, 39.6, 8.3, 23.2, 2.5, 74, 1.3},
	}
	for _, c := range cases {
		d, s2 := c.seek+c.rot, c.seekVar+c.rotV
		k := 1024 / (c.rateMBs * 1e3) // ms per 1 KB block
		cs, err := CStar(d, s2, k)
		if err != nil {
			t.Fatal(err)
		}
		if math.Round(cs) != c.wantKB {
			t.Errorf("%s: c* = %.2f KB, paper %v", c.disk, cs, c.wantKB)
		}
		realized := cs * 1024 / (d + cs*k) / 1e3 // bytes per ms -> MB/s
		if r := math.Round(realized*10) / 10; r != c.wantRealized {
			t.Errorf("%s: realized %.3f MB/s, paper %v", c.disk, realized, c.wantRealized)
		}
	}
}

func TestCStarErrors(t *testing.T) {
	cases := []struct {
		d, s2, k float64
		name     string
	}{
		{0, 1, 1, "D "}, {-1, 1, 1, "D "}, {math.NaN(), 1, 1, "D "}, {math.Inf(1), 1, 1, "D "},
		{1, -1, 1, "sigma^2"}, {1, math.NaN(), 1, "sigma^2"},
		{1, 1, 0, "k "}, {1, 1, -4, "k "}, {1, 1, math.NaN(), "k "},
	}
	for _, c := range cases {
		_, err := CStar(c.d, c.s2, c.k)
		if !errors.Is(err, ErrBadParameter) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("CStar(%v,%v,%v): %v, want error naming %q", c.d, c.s2, c.k, err, c.name)
		}
	}
	if c, err := CStar(20, 0, 4); err != nil || c != 5 {
		t.Errorf("zero variance: %v %v, want 5", c, err)
	}
}
