package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Thread scaling (issue 31): the varmail and oltp personalities at several
// client thread counts on every peer target, wall clock. A point is one
// timed run of PeersSizes.Duration in a fresh directory of the target;
// each target is made once and runs every point.
//
// varmail at N threads is filebench's varmail with nthreads = N. oltp at N
// threads has N shadow readers, max(1, N/20) database writers (oltp.f's
// 200 to 10) and its one log writer; the writers and the log writer are
// paced by the readers' credits, so N sets the load.

// DefaultScalingThreads are the thread counts.
func DefaultScalingThreads() []int { return []int{1, 2, 4, 8, 16} }

// scalingWorkloads are the personalities of the scaling bench.
var scalingWorkloads = []string{"varmail", "oltp"}

// scalingGoal is the bound: vlfs at least this many times the
// loopback's ops/s at every thread count.
const scalingGoal = 2.0

// RunScaling runs every scaling workload at each of threads on every
// target of cfg (cfg.Workloads is not used).
func RunScaling(cfg PeersConfig, threads []int) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if len(threads) == 0 {
		threads = DefaultScalingThreads()
	}
	rep := &Report{
		Bench: "scaling", Clock: ClockWall, Disk: cfg.Model.Params(),
		Params:  peersParams(cfg),
		Columns: []string{"target", "workload", "clock", "head_model", "threads", "ops_s", "mb_s", "p50_ms", "p99_ms", "ops_x_loopback", "ops_x_native"},
	}
	rep.Disk["preset"] = cfg.DiskName
	rep.Params["threads"] = fmt.Sprint(threads)
	delete(rep.Params, "workloads")
	env := probePeers(cfg)
	rep.Notes = append(rep.Notes, env.notes...)
	for _, name := range PeerTargets() {
		if !slices.Contains(cfg.Targets, name) || env.skip[name] != "" {
			continue
		}
		rows, err := scaleTarget(cfg, name, threads)
		if err != nil {
			return nil, fmt.Errorf("scaling: %s: %w", name, err)
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	scalingRatios(rep.Rows)
	rep.Notes = append(rep.Notes, scalingNotes(rep.Rows, threads)...)
	return rep, nil
}

// scaleTarget makes one target and runs every point on it.
func scaleTarget(cfg PeersConfig, name string, threads []int) ([]map[string]any, error) {
	cfg.Logf("scaling: starting %s", name)
	t, err := startTarget(cfg, name)
	if err != nil {
		return nil, err
	}
	rows, err := scalePoints(cfg, t, threads)
	if serr := t.stop(); err == nil && serr != nil {
		err = fmt.Errorf("stopping: %w", serr)
	}
	return rows, err
}

func scalePoints(cfg PeersConfig, t peerTarget, threads []int) ([]map[string]any, error) {
	var rows []map[string]any
	for _, wl := range scalingWorkloads {
		for _, n := range threads {
			dir, err := os.MkdirTemp(t.dir(), fmt.Sprintf("%s-t%d-", wl, n))
			if err != nil {
				return nil, err
			}
			r, err := scalePoint(cfg, t, dir, wl, n)
			if err == nil {
				err = os.RemoveAll(dir)
			}
			if err != nil {
				return nil, fmt.Errorf("%s at %d threads: %w", wl, n, err)
			}
			cfg.Logf("scaling: %-8s %-8s %3d threads %10.1f ops/s  p50 %8.3f ms  p99 %8.3f ms",
				t.name(), wl, n, float64(r.ops)/r.elapsed.Seconds(), r.p50, r.p99)
			row := r.row(t.name())
			row["threads"] = n
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// scalePoint runs one workload at n threads in dir.
func scalePoint(cfg PeersConfig, t peerTarget, dir, wl string, n int) (peerResult, error) {
	if wl == "varmail" {
		return varmailThreadsRun(cfg, t, dir, n)
	}
	files, err := openOLTP(dir, cfg.Sizes.OLTPFileSize)
	if err != nil {
		return peerResult{}, err
	}
	defer files.close()
	cfg.Logf("scaling: %s: oltp, %d readers, for %v", t.name(), n, cfg.Sizes.Duration)
	return measured(t, func() (peerResult, error) {
		return oltpRun(files, cfg.Sizes.Duration, n, max(1, n*oltpDBWriters/200))
	})
}

// scalingRatios adds ops_x_P for each peer P at the same workload and
// thread count.
func scalingRatios(rows []map[string]any) {
	type key struct {
		target, workload string
		threads          int
	}
	by := map[key]map[string]any{}
	for _, r := range rows {
		by[key{r["target"].(string), r["workload"].(string), r["threads"].(int)}] = r
	}
	for _, r := range rows {
		for _, p := range []string{PeerLoopback, PeerNative} {
			peer, ok := by[key{p, r["workload"].(string), r["threads"].(int)}]
			if !ok || p == r["target"] {
				continue
			}
			if v, ok := ratio(r["ops_s"], peer["ops_s"]); ok {
				r["ops_x_"+p] = v
			}
		}
	}
}

// scalingNotes states the two targets per workload: vlfs's ops/s
// never falls when threads are added, and it stays at least scalingGoal
// times the loopback's at every thread count.
func scalingNotes(rows []map[string]any, threads []int) []string {
	var notes []string
	for _, wl := range scalingWorkloads {
		var ops []float64
		var ratios []string
		worst, measuredAll := 0.0, true
		for _, n := range threads {
			var r map[string]any
			for _, x := range rows {
				if x["target"] == PeerVLFS && x["workload"] == wl && x["threads"] == n {
					r = x
				}
			}
			if r == nil {
				measuredAll = false
				break
			}
			ops = append(ops, r["ops_s"].(float64))
			v, ok := r["ops_x_loopback"].(float64)
			if !ok {
				measuredAll = false
				continue
			}
			ratios = append(ratios, fmt.Sprintf("%.2fx", v))
			if len(ratios) == 1 || v < worst {
				worst = v
			}
		}
		if len(ops) == 0 {
			notes = append(notes, fmt.Sprintf("target (issue 31) %s thread scaling: not measured in this run", wl))
			continue
		}
		var falls []string
		for i := 1; i < len(ops); i++ {
			if ops[i] < ops[i-1] {
				falls = append(falls, fmt.Sprintf("%d to %d threads (%.0f to %.0f ops/s)", threads[i-1], threads[i], ops[i-1], ops[i]))
			}
		}
		verdict := "MET"
		if len(falls) > 0 {
			verdict = "MISSED: falls from " + strings.Join(falls, ", ")
		}
		notes = append(notes, fmt.Sprintf("target (issue 31) %s: vlfs's ops/s never falls as threads are added (%s)", wl, verdict))
		if !measuredAll || len(ratios) == 0 {
			notes = append(notes, fmt.Sprintf("target (issue 31) %s: at least %.0fx the loopback at every thread count: not measured at every count", wl, scalingGoal))
			continue
		}
		verdict = "MET"
		if worst < scalingGoal {
			verdict = "MISSED"
		}
		notes = append(notes, fmt.Sprintf("target (issue 31) %s: at least %.0fx the loopback at every thread count: measured %s at %v threads (%s)",
			wl, scalingGoal, strings.Join(ratios, ", "), threads, verdict))
	}
	return notes
}
