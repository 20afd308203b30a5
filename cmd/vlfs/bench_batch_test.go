package main

import (
	"strings"
	"testing"
)

// TestBenchBatchJSON runs both experiments small and checks the rows'
// fields: the names, model_ms beside Poisson model points, and
// mode, read_p99_ms, write_mb_s on live rows.
func TestBenchBatchJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "batch", "--quick", "--json", "--arrivals", "poisson,zero-seek",
		"--max-batch", "6", "--model-periods", "30", "--live-periods", "1", "--modes", "cstar,fifo")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "batch" || r.Clock != "simulated" || r.Disk["name"] != "carson-setia" || r.Disk["batch_blocks"] != 5.0 {
		t.Fatalf("report header: %+v", r.Disk)
	}
	counts := map[string]int{}
	for _, row := range r.Rows {
		exp, _ := row["experiment"].(string)
		counts[exp]++
		for _, k := range []string{"arrivals", "load", "batch_blocks", "read_mean_ms"} {
			if _, ok := row[k]; !ok {
				t.Errorf("row lacks %s: %v", k, row)
			}
		}
		_, hasModel := row["model_ms"]
		switch {
		case exp == "live":
			for _, k := range []string{"mode", "read_p99_ms", "write_mb_s"} {
				if _, ok := row[k]; !ok {
					t.Errorf("live row lacks %s: %v", k, row)
				}
			}
		case row["arrivals"] == "poisson" && row["util"].(float64) < 1 && !hasModel:
			t.Errorf("poisson model row lacks model_ms: %v", row)
		case row["arrivals"] == "zero-seek" && hasModel:
			t.Errorf("zero-seek row has model_ms: %v", row)
		}
	}
	if counts["model"] != 2*4*6 || counts["live"] != 4*2 {
		t.Errorf("rows per experiment %v", counts)
	}
}

func TestBenchBatchText(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "batch", "--quick", "--experiments", "model", "--arrivals", "hyperexp-reads,hyperexp",
		"--max-batch", "2", "--model-periods", "10")
	if code != exitOK || !strings.Contains(out, "load 3a (Figure 3)") || !strings.Contains(out, "model hyperexp load A") || !strings.Contains(out, "simulated minimum") {
		t.Fatalf("exit %d: %s\n%s", code, errb, out)
	}
}

func TestBenchBatchErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--block-size", "0"}, "block-size"},
		{[]string{"--block-size", "1000"}, "block size"},
		{[]string{"--max-batch", "-1"}, "max-batch"},
		{[]string{"--model-periods", "0"}, "model-periods"},
		{[]string{"--live-blocks", "-5"}, "live-blocks"},
		{[]string{"--experiments", "nope"}, "experiment"},
		{[]string{"--arrivals", "bursty"}, "arrivals"},
		{[]string{"--modes", "lifo"}, "mode"},
		{[]string{"--disk", "no-such-disk"}, "no-such-disk"},
		{[]string{"extra"}, "usage"},
	}
	for _, c := range cases {
		code, _, errb := runBenchCmd(t, append([]string{"bench", "batch", "--quick"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage naming %q", c.args, code, errb, c.want)
		}
	}
}
