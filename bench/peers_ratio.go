package bench

import "fmt"

// ratioColumns are the ratio keys of a peers row: for each peer P, the
// row's ops/s over P's (ops_x_P) and its p50 latency over P's (p50_x_P).
// A row has no ratio to itself or to a peer that did not run.
func ratioColumns() []string {
	var cols []string
	for _, p := range PeerTargets() {
		cols = append(cols, "ops_x_"+p)
	}
	for _, p := range PeerTargets() {
		cols = append(cols, "p50_x_"+p)
	}
	return cols
}

// addRatios adds the ratio keys to every row.
func addRatios(rep *Report) {
	byKey := map[[2]string]map[string]any{}
	for _, r := range rep.Rows {
		byKey[[2]string{r["target"].(string), r["workload"].(string)}] = r
	}
	for _, r := range rep.Rows {
		for _, p := range PeerTargets() {
			peer, ok := byKey[[2]string{p, r["workload"].(string)}]
			if !ok || p == r["target"] {
				continue
			}
			if v, ok := ratio(r["ops_s"], peer["ops_s"]); ok {
				r["ops_x_"+p] = v
			}
			if v, ok := ratio(r["p50_ms"], peer["p50_ms"]); ok {
				r["p50_x_"+p] = v
			}
		}
	}
}

func ratio(a, b any) (float64, bool) {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	if !ok1 || !ok2 || y <= 0 {
		return 0, false
	}
	return x / y, true
}

// peerGoal is one of issues 3 and 9's targets for vlfs against a peer.
type peerGoal struct {
	issue    string
	workload string
	key      string // ratio key of the vlfs row
	atMost   bool   // the ratio must be <= limit (else >=)
	limit    float64
	what     string
}

// met says whether the measured ratio v meets the goal.
func (g peerGoal) met(v float64) bool {
	if g.atMost {
		return v <= g.limit
	}
	return v >= g.limit
}

func peerGoals() []peerGoal {
	goals := []peerGoal{
		{"3, 9", "fio-randwrite-fsync", "p50_x_fuse2fs", true, 0.7, "4 KiB write+fsync p50 at most 0.7x fuse2fs"},
		{"3", "fio-append-fsync", "p50_x_fuse2fs", true, 0.7, "the same, read as appends (4 KiB appending write+fsync p50 at most 0.7x fuse2fs)"},
		{"3", "meta-create", "ops_x_fuse2fs", false, 2, "creates at least 2x fuse2fs's rate"},
		{"3, 9", "fio-seqwrite", "ops_x_loopback", false, 0.8, "sequential write at least 0.8x loopback"},
		{"3, 9", "fio-seqread", "ops_x_loopback", false, 0.8, "sequential read at least 0.8x loopback"},
		{"9", "varmail", "ops_x_loopback", false, 2, "varmail ops/s at least 2x loopback"},
		{"9", "varmail", "ops_x_fuse2fs", false, 3, "varmail ops/s at least 3x fuse2fs"},
	}
	for _, st := range mixStressors {
		goals = append(goals, peerGoal{"31", "mix-" + st.name, "ops_x_loopback", false, 1,
			"stress-ng mix: " + st.name + " at least the loopback's rate"})
	}
	return goals
}

// targetNotes says, for each goal, what this run measured and whether it
// was met; goals whose rows did not run say so.
func targetNotes(rows []map[string]any) []string {
	var notes []string
	for _, g := range peerGoals() {
		var v float64
		found := false
		for _, r := range rows {
			if r["target"] == PeerVLFS && r["workload"] == g.workload {
				v, found = r[g.key].(float64)
			}
		}
		if !found {
			notes = append(notes, fmt.Sprintf("target (issue %s) %s: not measured in this run", g.issue, g.what))
			continue
		}
		verdict := "MET"
		if !g.met(v) {
			verdict = "MISSED"
		}
		notes = append(notes, fmt.Sprintf("target (issue %s) %s: measured %.2fx (%s)", g.issue, g.what, v, verdict))
	}
	notes = append(notes, mixNotes(rows)...)
	if n := fsyncSplitNote(rows); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// fsyncSplitNote puts the write+fsync target beside what bounds it: the
// pass-through loopback's ratio in the same run (its fsync is one host
// fsync and nothing more), and where vlfs's server spent the time.
func fsyncSplitNote(rows []map[string]any) string {
	var lb, v map[string]any
	for _, r := range rows {
		if r["workload"] != "fio-randwrite-fsync" {
			continue
		}
		switch r["target"] {
		case PeerLoopback:
			lb = r
		case PeerVLFS:
			v = r
		}
	}
	if v == nil {
		return ""
	}
	num := func(r map[string]any, k string) (float64, bool) {
		x, ok := r[k].(float64)
		return x, ok
	}
	note := "write+fsync (wall):"
	if x, ok := num(lb, "p50_x_fuse2fs"); ok {
		note += fmt.Sprintf(" the pass-through loopback's p50 is %.2fx fuse2fs's;", x)
	}
	fsync, ok1 := num(v, "fsync_wall_us_p50")
	plan, ok2 := num(v, "plan_wall_us_p50")
	vol, ok3 := num(v, "volume_wall_us_p50")
	flush, ok4 := num(v, "flush_wall_us_p50")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		if lb == nil {
			return ""
		}
		return note
	}
	return note + fmt.Sprintf(" in vlfs's server, medians: fsync %.0f us, commit plan %.0f us, volume part %.0f us, device flush (fdatasync) %.0f us",
		fsync, plan, vol, flush)
}
