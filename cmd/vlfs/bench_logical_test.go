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
}
