package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		"--verify", "--metrics-brief", "--yaml", yaml,
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
	yaml := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".yaml")
	defer os.Remove(yaml)
	cfg.Logf("peers: %s: stress-ng mix for %v", t.name(), cfg.Sizes.MixDuration)
	before := t.counters()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Sizes.MixDuration+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "stress-ng", mixArgs(cfg.Sizes, dir, yaml)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("stress-ng: %w\n%s", err, tail(out, 2000))
	}
	after := t.counters()
	f, err := os.Open(yaml)
	if err != nil {
		return nil, fmt.Errorf("stress-ng wrote no metrics: %w", err)
	}
	defer f.Close()
	ms, err := parseStressMetrics(f)
	if err != nil {
		return nil, err
	}
	worst := before.worstP99(after)
	var res []peerResult
	for _, st := range mixStressors {
		m, ok := ms[st.name]
		if !ok {
			return nil, fmt.Errorf("stress-ng reported no metrics for %s:\n%s", st.name, tail(out, 2000))
		}
		r := peerResult{workload: "mix-" + st.name, ops: m.ops, elapsed: time.Duration(m.wallS * float64(time.Second)),
			extra: map[string]any{"mix_run_s": elapsed.Seconds()}}
		if worst.op != "" {
			r.extra["server_worst_p99_ms"] = worst.ms
			r.extra["server_worst_p99_op"] = worst.op
		}
		res = append(res, r)
	}
	return res, nil
}

// stressMetric is one stressor's line of stress-ng's YAML metrics.
type stressMetric struct {
	ops   int64
	wallS float64
}

// parseStressMetrics reads the "metrics:" list of a stress-ng --yaml file:
// each "- stressor: NAME" item's bogo-ops and wall-clock-time. A stressor
// that ran several instances is one item.
func parseStressMetrics(f *os.File) (map[string]stressMetric, error) {
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
		if s.wallS <= 0 {
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

// tail is the last n bytes of out, for error messages.
func tail(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return string(out)
}

// mixWorstNote states issue 31's latency target for the mix: no FUSE
// request type's p99 above mixWorstLimitMs in vlfs's server while it ran.
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
			mixWorstLimitMs, r["server_worst_p99_op"], ms, verdict)
	}
	return ""
}
