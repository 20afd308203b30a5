package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestBenchLogicalUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--clock", "sundial"}, "want virtual or real"},
		{[]string{"--utilizations", "half"}, "not a number"},
		{[]string{"--writes", "0"}, "usage"},
		{[]string{"--disk", "nosuch"}, "nosuch"},
		{[]string{"extra"}, "usage"},
	}
	for _, c := range cases {
		code, _, errs := runDiskCLI(append([]string{"bench", "logical"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d and %q in: %s", c.args, code, exitUsage, c.want, errs)
		}
	}
}

// TestBenchLogicalJSON runs a tiny benchmark end to end and reads its JSON.
func TestBenchLogicalJSON(t *testing.T) {
	for _, p := range []string{"fusermount3", "mkfs.ext4"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s (make deps): %v", p, err)
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("needs /dev/fuse: %v", err)
	}
	code, out, errs := runDiskCLI("bench", "logical", "--disk-mib", "32", "--writes", "20",
		"--utilizations", "0.5", "--no-layers", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Bench, Clock string
		Params       map[string]any
		Rows         []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Bench != "logical" || r.Clock != "simulated" || len(r.Rows) != 2 || r.Params["writes"] != 20.0 {
		t.Fatalf("report: %+v", r)
	}
	if _, ok := r.Rows[1]["speedup"].(float64); !ok {
		t.Errorf("eager row without a speed-up: %v", r.Rows[1])
	}
	if r.Params["head"] != "oracle" || r.Rows[1]["head_model"] != "simulated" {
		t.Errorf("default head: params.head %v, eager head_model %v; want oracle, simulated", r.Params["head"], r.Rows[1]["head_model"])
	}
}

// TestBenchLogicalHeadProfile: --head profile:FILE reaches the exported
// VLD: its eager row says (from the volume) it placed by the profile. The
// upper file system's writes are not deterministic, so no time is
// compared here; the other benchmarks' tests compare times.
func TestBenchLogicalHeadProfile(t *testing.T) {
	for _, p := range []string{"fusermount3", "mkfs.ext4"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s (make deps): %v", p, err)
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("needs /dev/fuse: %v", err)
	}
	p := tinyProfile(t, "st19101")
	code, out, errs := runDiskCLI("bench", "logical", "--quick", "--disk-mib", "32", "--writes", "20",
		"--utilizations", "0.5", "--no-layers", "--head", "profile:"+p, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decodeBench(t, out)
	if r.Params["head"] != "profile" || len(r.Rows) != 2 || r.Params["writes"] != 20.0 || r.Disk["region_bytes"] != float64(32<<20) {
		t.Fatalf("--quick with explicit sizes and --head: params %v, disk region %v, %d rows", r.Params, r.Disk["region_bytes"], len(r.Rows))
	}
	if eager := r.Rows[1]; eager["placement"] != "eager" || eager["head_model"] != "profile" {
		t.Errorf("eager row: placement %v, head_model %v; want eager, profile", eager["placement"], eager["head_model"])
	}
	if code, _, errs := runDiskCLI("bench", "logical", "--head", "sim:st19101"); code != exitUsage {
		t.Errorf("--head sim:st19101: exit %d, want %d: %s", code, exitUsage, errs)
	}
}
