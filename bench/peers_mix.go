package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// mixStressors is issue 31's mixed load: stress-ng's stressors with their
// instance counts, all at once in one directory. Small operations (chmod,
// xattr, rename) run beside long ones (hdd's streaming writes, fallocate),
// so a file system that holds one lock across long work starves them.
var mixStressors = []struct {
	name      string
	instances int
}{
	{"hdd", 2}, {"dir", 2}, {"link", 2}, {"rename", 2}, {"fallocate", 2},
	{"chmod", 1}, {"xattr", 1}, {"dentry", 1}, {"seek", 2},
}

// mixWorstLimitMs is the bound on any one operation's p99 while
// the mix runs.
const mixWorstLimitMs = 100

// mixArgs is the stress-ng command line for the mix in dir for d, with
// the byte sizes fixed from the image size so that every target does the
// same work and the mix fits the images (stress-ng's defaults, 1 GiB a
// hdd instance, would not fit a --quick image).
func mixArgs(s PeersSizes, dir, yaml string) []string {
	args := []string{"--temp-path", dir, "--timeout", fmt.Sprintf("%ds", max(int(s.MixDuration.Seconds()), 1)),
		// --metrics, not --metrics-brief: brief leaves out a stressor that
		// made no bogo operation (link's are slow: one is 8,192 links),
		// and a run on a slow target must report its zero, not lose it.
		"--verify", "--metrics", "--yaml", yaml,
		"--hdd-bytes", strconv.FormatInt(s.ImageBytes/8, 10),
		"--fallocate-bytes", strconv.FormatInt(s.ImageBytes/16, 10)}
	for _, st := range mixStressors {
		args = append(args, "--"+st.name, strconv.Itoa(st.instances))
	}
	return args
}

// runMix runs the mix once and reports one row per stressor (ops_s is
// stress-ng's bogo operations per second of real time). On vlfs the rows
// also carry the slowest FUSE request's p99 over the run, measured in the
// server from a request's arrival to its answer (the kernel's queue
// before it is not seen).
func runMix(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	// The metrics go outside the file system under test.
	yf, err := os.CreateTemp("", "vlfs-mix-*.yaml")
	if err != nil {
		return nil, err
	}
	yaml := yf.Name()
	yf.Close()
	defer os.Remove(yaml)
	cfg.Logf("peers: %s: stress-ng mix for %v", t.name(), cfg.Sizes.MixDuration)
	before := t.counters()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Sizes.MixDuration+2*time.Minute)
	defer cancel()
	cmd := ownSession(exec.CommandContext(ctx, "stress-ng", mixArgs(cfg.Sizes, dir, yaml)...))
	// The working directory stays outside the mount (--temp-path puts the
	// files there): Go starts a child with vfork, and the thread that
	// forked keeps its P until the child has changed directory and
	// exec'd. A chdir into vlfs's mount needs this process's FUSE server;
	// when a garbage collection wanted that P meanwhile, the server could
	// not run and the bench hung (2 runs in 6 on 2026-11-29, stuck in GC
	// mark termination with the child waiting on a LOOKUP).
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	elapsed := time.Since(start)
	after := t.counters()
	f, err := os.Open(yaml)
	if err != nil {
		return nil, fmt.Errorf("stress-ng wrote no metrics: %w (run: %v)\n%s", err, runErr, tail(out, 2000))
	}
	defer f.Close()
	ms, err := parseStressMetrics(f)
	if err != nil {
		return nil, err
	}
	// A stressor that fails its own checks (fuse2fs's xattrs do) leaves
	// its rate standing, with the failures counted on its row and logged.
	fails := stressFailures(out)
	for _, line := range fails["*"] {
		cfg.Logf("peers: %s: %s", t.name(), line)
	}
	worst := before.worstP99(after)
	var res []peerResult
	for _, st := range mixStressors {
		m, ok := ms[st.name]
		switch {
		case !ok && len(fails[st.name]) == 0:
			return nil, fmt.Errorf("stress-ng reported no metrics for %s:\n%s", st.name, tail(out, 2000))
		case !ok:
			m = stressMetric{wallS: elapsed.Seconds()} // it failed: no rate
		case m.wallS <= 0: // no instance started its clock: a zero over the run
			m.wallS = elapsed.Seconds()
		}
		r := peerResult{workload: "mix-" + st.name, ops: m.ops, elapsed: time.Duration(m.wallS * float64(time.Second)),
			extra: map[string]any{"mix_run_ms": float64(elapsed.Milliseconds()), "mix_failures": len(fails[st.name])}}
		if worst.op != "" {
			r.extra["server_worst_p99_ms"] = worst.ms
			r.extra["server_worst_op"] = worst.op
		}
		res = append(res, r)
	}
	return res, nil
}

// stressFailures collects stress-ng's "fail:" lines by stressor (the word
// after the process number) and all of them under "*".
func stressFailures(out []byte) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		_, rest, ok := strings.Cut(line, " fail: ")
		if !ok {
			continue
		}
		line = strings.TrimSpace(line)
		m["*"] = append(m["*"], line)
		if _, after, ok := strings.Cut(rest, "] "); ok {
			name, _, _ := strings.Cut(after, ":")
			m[name] = append(m[name], line)
		}
	}
	return m
}

// stressMetric is one stressor's line of stress-ng's YAML metrics.
type stressMetric struct {
	ops   int64
	wallS float64
}

// parseStressMetrics reads the "metrics:" list of a stress-ng --yaml file:
// each "- stressor: NAME" item's bogo-ops and wall-clock-time. A stressor
// that ran several instances is one item; one that made no operation may
// have no wall-clock time (the caller uses the run's).
func parseStressMetrics(f io.Reader) (map[string]stressMetric, error) {
	m := map[string]stressMetric{}
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "- stressor":
			cur = v
			m[cur] = stressMetric{}
		case "bogo-ops", "wall-clock-time":
			if cur == "" {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("stress-ng metrics: %s of %s: %w", k, cur, err)
			}
			s := m[cur]
			if k == "bogo-ops" {
				s.ops = int64(x)
			} else {
				s.wallS = x
			}
			m[cur] = s
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for name, s := range m {
		if s.wallS <= 0 && s.ops > 0 {
			return nil, fmt.Errorf("stress-ng metrics: %s has no wall-clock time", name)
		}
	}
	return m, nil
}

// worstReq is the FUSE opcode with the highest p99 between two snapshots.
type worstReq struct {
	op string
	ms float64
}

// worstP99 finds the request type with the largest p99 answer time
// between a and b (requests seen fewer than 100 times are left out: their
// p99 is their maximum).
func (a *serverSnapshot) worstP99(b *serverSnapshot) worstReq {
	var w worstReq
	if a == nil || b == nil {
		return w
	}
	names := make([]string, 0, len(b.reqs))
	for op := range b.reqs {
		names = append(names, op)
	}
	slices.Sort(names)
	for _, op := range names {
		d := b.reqs[op].Sub(a.reqs[op])
		if d.Count() < 100 {
			continue
		}
		if ms := float64(d.Quantile(0.99)) / 1e6; ms > w.ms {
			w = worstReq{op, ms}
		}
	}
	return w
}

// asFloat reads a row's number, an int as made or a float64 as decoded.
func asFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// tail is the last n bytes of out, for error messages.
func tail(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return string(out)
}

// mixNotes says which targets' stressors failed their own checks, and
// states issue 31's latency target for the mix: no FUSE request type's p99
// above mixWorstLimitMs in vlfs's server while it ran.
func mixNotes(rows []map[string]any) []string {
	failed := map[string][]string{}
	for _, r := range rows {
		if n := asFloat(r["mix_failures"]); n > 0 {
			t := r["target"].(string)
			failed[t] = append(failed[t], fmt.Sprintf("%s (%.0f)", r["workload"], n))
		}
	}
	var notes []string
	for _, t := range PeerTargets() {
		if len(failed[t]) > 0 {
			notes = append(notes, fmt.Sprintf("stress-ng mix on %s: stressors failed their own checks: %s (the log has stress-ng's lines)",
				t, strings.Join(failed[t], ", ")))
		}
	}
	if n := mixWorstNote(rows); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// mixWorstNote is the latency target's verdict, or "" when vlfs's mix
// did not run.
func mixWorstNote(rows []map[string]any) string {
	for _, r := range rows {
		if r["target"] != PeerVLFS || !strings.HasPrefix(r["workload"].(string), "mix-") {
			continue
		}
		ms, ok := r["server_worst_p99_ms"].(float64)
		if !ok {
			return ""
		}
		verdict := "MET"
		if ms > mixWorstLimitMs {
			verdict = "MISSED"
		}
		return fmt.Sprintf("target (issue 31) stress-ng mix: no request's p99 above %d ms in vlfs's server: slowest %s at %.1f ms (%s)",
			mixWorstLimitMs, r["server_worst_op"], ms, verdict)
	}
	return ""
}
