package bench

import (
	"slices"
	"strings"
	"testing"
)

func TestRoundOrder(t *testing.T) {
	ts := []string{"a", "b", "c"}
	for _, c := range []struct {
		r    int
		want []string
	}{
		{0, []string{"a", "b", "c"}},
		{1, []string{"b", "c", "a"}},
		{2, []string{"c", "a", "b"}},
		{4, []string{"b", "c", "a"}},
	} {
		if got := roundOrder(ts, c.r); !slices.Equal(got, c.want) {
			t.Errorf("round %d: %v, want %v", c.r, got, c.want)
		}
	}
	if !slices.Equal(ts, []string{"a", "b", "c"}) {
		t.Errorf("roundOrder changed its input: %v", ts)
	}
	if got := roundOrder(nil, 3); got != nil {
		t.Errorf("no targets: %v", got)
	}
}

// TestMergeRounds: one row per target and workload in PeerTargets order,
// numeric fields the median over the rounds (whatever order the rounds ran
// the targets in), other fields kept; the notes give each round's ratio.
func TestMergeRounds(t *testing.T) {
	row := func(target, workload string, p50, ops float64) map[string]any {
		return map[string]any{"target": target, "workload": workload, "clock": ClockWall, "p50_ms": p50, "ops_s": ops}
	}
	rounds := [][]map[string]any{
		{row(PeerFuse2fs, "fio-randwrite-fsync", 0.30, 10), row(PeerVLFS, "fio-randwrite-fsync", 0.30, 1)},
		{row(PeerVLFS, "fio-randwrite-fsync", 0.20, 3), row(PeerFuse2fs, "fio-randwrite-fsync", 0.40, 30)},
		{row(PeerFuse2fs, "fio-randwrite-fsync", 0.35, 20), row(PeerVLFS, "fio-randwrite-fsync", 0.21, 2)},
	}
	rows := mergeRounds(rounds)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %v", len(rows), rows)
	}
	if rows[0]["target"] != PeerFuse2fs || rows[1]["target"] != PeerVLFS {
		t.Errorf("order %v, %v: want fuse2fs then vlfs", rows[0]["target"], rows[1]["target"])
	}
	for _, c := range []struct {
		i        int
		key      string
		want     float64
		wantText string
	}{
		{0, "p50_ms", 0.35, ""},
		{0, "ops_s", 20, ""},
		{1, "p50_ms", 0.21, ""},
		{1, "ops_s", 2, ""},
		{1, "rounds", 3, ""},
		{1, "clock", 0, ClockWall},
	} {
		got := rows[c.i][c.key]
		if c.wantText != "" {
			if got != c.wantText {
				t.Errorf("row %d %s = %v, want %q", c.i, c.key, got, c.wantText)
			}
			continue
		}
		if x, _ := got.(float64); x != c.want {
			t.Errorf("row %d %s = %v, want %v", c.i, c.key, got, c.want)
		}
	}
	notes := strings.Join(roundNotes(rounds), "\n")
	for _, want := range []string{"1.00, 0.50, 0.60", "median 0.60x", "met in 2 of 3 rounds"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if n := roundNotes(rounds[:1]); n != nil {
		t.Errorf("one round has round notes: %v", n)
	}
	if got := mergeRounds(rounds[:1]); len(got) != 2 || got[0]["p50_ms"] != 0.30 {
		t.Errorf("one round was changed: %v", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
