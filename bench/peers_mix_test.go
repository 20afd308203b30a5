package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStressMetrics(t *testing.T) {
	const yaml = `---
system-info:
      stress-ng-version: 0.15.06
metrics:
    - stressor: hdd
      bogo-ops: 11707
      bogo-ops-per-second-real-time: 3521.236628
      wall-clock-time: 3.324684
      mbsec-read-rate: 2134.237241

    - stressor: link
      bogo-ops: 6
      wall-clock-time: 3.317041
`
	cases := []struct {
		name    string
		in      string
		want    map[string]stressMetric
		wantErr bool
	}{
		{"two stressors", yaml, map[string]stressMetric{"hdd": {11707, 3.324684}, "link": {6, 3.317041}}, false},
		{"no metrics", "---\nsystem-info:\n  x: 1\n", map[string]stressMetric{}, false},
		{"bad number", "metrics:\n  - stressor: hdd\n    bogo-ops: many\n", nil, true},
		{"no wall time", "metrics:\n  - stressor: hdd\n    bogo-ops: 3\n", nil, true},
		// A stressor that made no operation (link on a slow target in a
		// 1 s mix) is a zero, not an error; runMix gives it the run's time.
		{"zero ops, no wall time", "metrics:\n  - stressor: link\n    bogo-ops: 0\n", map[string]stressMetric{"link": {0, 0}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseStressMetrics(strings.NewReader(c.in))
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.wantErr {
				return
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s: got %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

// TestMixArgsReportZeros: stress-ng's --metrics-brief leaves out a
// stressor with no bogo operation, which made a 1 s mix on fuse2fs fail
// with "reported no metrics for link" (CI, session 25).
func TestMixArgsReportZeros(t *testing.T) {
	args := mixArgs(PeersSizes{ImageBytes: 64 << 20, MixDuration: time.Second}, "/tmp/x", "/tmp/x.yaml")
	if !slices.Contains(args, "--metrics") || slices.Contains(args, "--metrics-brief") {
		t.Fatalf("mix arguments %q: want --metrics (every stressor's line, zeros too), not --metrics-brief", args)
	}
}

func TestStressFailures(t *testing.T) {
	out := []byte(`stress-ng: info:  [15445] dispatching hogs: 2 hdd
stress-ng: fail:  [15469] xattr: fsetxattr succeeded unexpectedly
stress-ng: fail:  [15449] hdd: rmdir './tmp' failed, errno=39
stress-ng: fail:  [15450] hdd: second
stress-ng: error: [15445] process [15469] (xattr) terminated with an error
`)
	f := stressFailures(out)
	if len(f["*"]) != 3 || len(f["xattr"]) != 1 || len(f["hdd"]) != 2 || len(f["error"]) != 0 {
		t.Fatalf("failures %v", f)
	}
}
