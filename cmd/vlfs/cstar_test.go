package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func cstarJSON(t *testing.T, args ...string) cstarResult {
	t.Helper()
	code, out, errb := runBenchCmd(t, append([]string{"cstar", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errb)
	}
	var r cstarResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCstarWorkedExample: the paper's D = 23.75 ms, sigma^2 = 44.2305 ms^2
// and 8 KB blocks at 4 ms each (8192 B / 2.048 MB/s) give c* = 6.17.
func TestCstarWorkedExample(t *testing.T) {
	r := cstarJSON(t, "--seek-mean", "15.75", "--seek-var", "22.8972", "--rot-mean", "8", "--rot-var", "21.3333",
		"--rate", "2.048", "--block-size", "8192")
	if math.Abs(r.DMs-23.75) > 1e-9 || math.Abs(r.Sigma2Ms2-44.2305) > 1e-9 || math.Abs(r.KMsPerBlock-4) > 1e-12 {
		t.Fatalf("inputs %+v", r)
	}
	if math.Abs(r.CStarBlocks-6.17) > 0.005 || r.BatchBlocks != 6 || math.Abs(r.CStarKB-6.17*8) > 0.05 {
		t.Errorf("c* %+v", r)
	}
}

// TestCstarTable1 pins Table 1 of the batching paper: c* in KB and the
// realized rate, which the paper prints to two significant figures.
func TestCstarTable1(t *testing.T) {
	cases := []struct {
		args     []string
		kb, rate float64
	}{
		{[]string{"--seek-mean", "14.40", "--seek-var", "18.90", "--rot-mean", "6.95", "--rot-var", "16.10", "--rate", "2.40"}, 52, 1.2},
		{[]string{"--seek-mean", "24.90", "--seek-var", "61.60", "--rot-mean", "7.47", "--rot-var", "18.60", "--rate", "2.20"}, 72, 1.1},
		{[]string{"--seek-mean", "21.1", "--seek-var", "39.6", "--rot-mean", "8.3", "--rot-var", "23.2", "--rate", "2.5"}, 74, 1.3},
	}
	for _, c := range cases {
		r := cstarJSON(t, append(c.args, "--block-size", "1024")...)
		if math.Round(r.CStarKB) != c.kb || math.Round(r.RealizedMBs*10)/10 != c.rate {
			t.Errorf("%v: c* %.2f KB, realized %.3f MB/s; paper %v KB, %v MB/s", c.args, r.CStarKB, r.RealizedMBs, c.kb, c.rate)
		}
		// The KB figure does not depend on the block size used to count it.
		if r8 := cstarJSON(t, append(c.args, "--block-size", "8192")...); math.Abs(r8.CStarKB-r.CStarKB) > 1e-9 {
			t.Errorf("c* KB depends on block size: %v vs %v", r8.CStarKB, r.CStarKB)
		}
	}
}

// TestCstarDisk derives the inputs from a model: the Carson-Setia preset
// has 16 ms revolutions (mean 8, variance 21.33) and 4 ms per 8 KB block.
func TestCstarDisk(t *testing.T) {
	r := cstarJSON(t, "--disk", "carson-setia", "--block-size", "8192")
	if math.Abs(r.RotMeanMs-8) > 1e-9 || math.Abs(r.RotVarMs2-256.0/12) > 1e-9 || math.Abs(r.KMsPerBlock-4) > 1e-9 {
		t.Errorf("carson-setia: %+v", r)
	}
	over := cstarJSON(t, "--disk", "carson-setia", "--block-size", "8192", "--seek-mean", "15.75", "--seek-var", "22.8972")
	if math.Abs(over.CStarBlocks-6.17) > 0.005 {
		t.Errorf("explicit flags should override the disk: %+v", over)
	}
	code, out, _ := runBenchCmd(t, "cstar", "--disk", "hp97560")
	if code != exitOK || !strings.Contains(out, "c*") || !strings.Contains(out, "realized") {
		t.Errorf("text: %d\n%s", code, out)
	}
}

func TestCstarErrors(t *testing.T) {
	base := []string{"--seek-mean", "10", "--seek-var", "5", "--rot-mean", "5", "--rot-var", "3", "--rate", "2"}
	with := func(flag, v string) []string {
		out := []string{"cstar"}
		for i := 0; i < len(base); i += 2 {
			if base[i] != flag {
				out = append(out, base[i], base[i+1])
			}
		}
		if v != "" {
			out = append(out, flag, v)
		}
		return out
	}
	cases := []struct {
		args []string
		want string
	}{
		{with("--rate", "0"), "--rate"},
		{with("--rate", ""), "--rate is required"},
		{with("--seek-mean", "-1"), "--seek-mean"},
		{with("--rot-var", "NaN"), "--rot-var"},
		{with("--seek-var", ""), "--seek-var is required"},
		{append(with("--rate", "2"), "--block-size", "0"), "--block-size"},
		{[]string{"cstar", "--seek-mean", "0", "--seek-var", "1", "--rot-mean", "0", "--rot-var", "1", "--rate", "2"}, "D (mean seek + rotation)"},
		{[]string{"cstar", "--disk", "no-such-disk"}, "no-such-disk"},
		{[]string{"cstar", "extra"}, "usage"},
	}
	for _, c := range cases {
		code, _, errb := runBenchCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errb, c.want)
		}
	}
}
