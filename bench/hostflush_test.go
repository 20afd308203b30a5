package bench

import (
	"os"
	"testing"
)

func TestHostFlushRows(t *testing.T) {
	dir := t.TempDir()
	rep, err := HostFlush(HostFlushConfig{Dir: dir, FileMiB: 1, Samples: 7, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	pats := hostFlushPatterns()
	if rep.Clock != ClockWall || len(rep.Rows) != len(pats) {
		t.Fatalf("clock %s, %d rows, want %d", rep.Clock, len(rep.Rows), len(pats))
	}
	for i, row := range rep.Rows {
		blocks, runs := 0, len(pats[i].runs)
		for _, n := range pats[i].runs {
			blocks += n
		}
		if row["pattern"] != pats[i].name || row["blocks"] != blocks || row["runs"] != runs {
			t.Errorf("row %d: %v, want pattern %s, %d blocks in %d runs", i, row, pats[i].name, blocks, runs)
		}
		p10, p50, p90 := row["p10_ms"].(float64), row["p50_ms"].(float64), row["p90_ms"].(float64)
		if !(p10 > 0 && p10 <= p50 && p50 <= p90) {
			t.Errorf("row %s: quantiles %v %v %v out of order", pats[i].name, p10, p50, p90)
		}
		if pats[i].name == "1" && (row["p50_x_one"] != 1.0 || row["p50_minus_one_ms"] != 0.0) {
			t.Errorf("the one-block row is not its own unit: %v", row)
		}
	}
	// The scratch file is gone.
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestHostFlushConfigErrors(t *testing.T) {
	for _, c := range []HostFlushConfig{
		{Dir: t.TempDir(), FileMiB: -1},
		{Dir: t.TempDir(), Samples: -2},
		{Dir: t.TempDir() + "/missing", FileMiB: 1, Samples: 1},
	} {
		if _, err := HostFlush(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
