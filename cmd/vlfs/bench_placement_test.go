package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchSmallfileLargefile(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "smallfile", "--files", "20", "--disk-mib", "32", "--json"}, exitOK, `"bench": "smallfile"`},
		{[]string{"bench", "largefile", "--file-mib", "1", "--disk-mib", "32", "--placement", "eager,lfs", "--json"}, exitOK, `"bench": "largefile"`},
		{[]string{"bench", "smallfile", "--placement", "ffs"}, exitUsage, "want eager, inplace, lfs"},
		{[]string{"bench", "updates", "--placement", "lfs", "--quick", "--updates", "100", "--disk-mib", "32", "--json"}, exitOK, `"placement": "lfs"`},
		{[]string{"bench", "updates", "--placement", "lfs", "--clean-policy", "oldest"}, exitUsage, "want cost-benefit or greedy"},
		{[]string{"bench", "updates", "--placement", "range"}, exitUsage, "runs inplace, eager or lfs"},
		{[]string{"bench", "breakdown", "--placement", "eager,lfs", "--quick", "--updates", "100", "--json"}, exitOK, `"placement": "lfs"`},
		{[]string{"bench", "idle", "--placement", "inplace"}, exitUsage, "runs eager or lfs"},
		{[]string{"bench", "locate", "--disk", "st19101", "--placement", "lfs"}, exitUsage, "only eager applies"},
		{[]string{"bench", "threshold", "--disk", "st19101", "--placement", "inplace"}, exitUsage, "only eager applies"},
		{[]string{"bench", "batch", "--placement", "lfs"}, exitUsage, "only eager applies"},
		{[]string{"bench", "largefile", "--file-mib", "64", "--disk-mib", "32"}, exitUsage, "usage"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
			t.Fatalf("%v: exit %d (want %d): %s%s", tc.args, code, tc.code, out.String(), errb.String())
		}
		if code == exitOK {
			var rep struct {
				Clock string
				Rows  []map[string]any
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Clock != "simulated" || len(rep.Rows) == 0 {
				t.Fatalf("%v: %v, clock %q, %d rows", tc.args, err, rep.Clock, len(rep.Rows))
			}
			if _, ok := rep.Rows[0]["placement"]; !ok {
				t.Fatalf("row without placement: %v", rep.Rows[0])
			}
		}
	}
}
