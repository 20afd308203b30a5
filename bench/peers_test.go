package bench

import (
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

func TestParseFio(t *testing.T) {
	syncJob := `fio: some warning
{"jobs": [{"jobname": "randwrite-fsync", "error": 0, "job_runtime": 1000,
  "read": {"total_ios": 0, "io_bytes": 0, "runtime": 0},
  "write": {"total_ios": 500, "io_bytes": 2048000, "runtime": 1000, "iops": 500,
            "clat_ns": {"N": 500, "percentile": {"50.000000": 20000, "99.000000": 90000}}},
  "sync": {"total_ios": 500, "lat_ns": {"N": 500, "percentile": {"50.000000": 30000, "99.000000": 110000}}}}]}`
	// fdatasync=1: fio leaves sync.total_ios at 0 and counts lat_ns.N.
	datasyncJob := `{"jobs": [{"jobname": "append-fdatasync", "error": 0,
  "write": {"total_ios": 1000, "io_bytes": 4096000, "runtime": 2000,
            "clat_ns": {"N": 1000, "percentile": {"50.000000": 3000, "99.000000": 9000}}},
  "sync": {"total_ios": 0, "lat_ns": {"N": 999, "percentile": {"50.000000": 360000, "99.000000": 900000}}}}]}`
	readJob := `{"jobs": [{"jobname": "seqread", "error": 0,
  "read": {"total_ios": 64, "io_bytes": 67108864, "runtime": 250,
           "clat_ns": {"N": 64, "percentile": {"50.000000": 1000000, "99.000000": 4000000}}},
  "write": {"total_ios": 0}, "sync": {"total_ios": 0}}]}`
	tests := []struct {
		name, raw  string
		ops, bytes int64
		elapsed    time.Duration
		p50, p99   float64
		wantErr    bool
	}{
		{name: "fsync job sums write and sync", raw: syncJob, ops: 500, bytes: 2048000, elapsed: time.Second, p50: 0.05, p99: 0.2},
		{name: "fdatasync job sums write and sync", raw: datasyncJob, ops: 1000, bytes: 4096000, elapsed: 2 * time.Second, p50: 0.363, p99: 0.909},
		{name: "read job", raw: readJob, ops: 64, bytes: 64 << 20, elapsed: 250 * time.Millisecond, p50: 1, p99: 4},
		{name: "garbage", raw: "fio: error", wantErr: true},
		{name: "two jobs", raw: `{"jobs": [{}, {}]}`, wantErr: true},
		{name: "job error", raw: `{"jobs": [{"error": 5}]}`, wantErr: true},
		{name: "no io", raw: `{"jobs": [{"jobname": "x", "read": {}, "write": {}}]}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseFio([]byte(tc.raw), "w")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if r.ops != tc.ops || r.bytes != tc.bytes || r.elapsed != tc.elapsed || !near(r.p50, tc.p50) || !near(r.p99, tc.p99) {
				t.Errorf("got %+v, want ops %d bytes %d elapsed %v p50 %g p99 %g", r, tc.ops, tc.bytes, tc.elapsed, tc.p50, tc.p99)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLatencyPercentiles(t *testing.T) {
	var l latencies
	if p50, p99 := l.percentiles(); p50 != 0 || p99 != 0 {
		t.Errorf("empty: %g %g", p50, p99)
	}
	for i := 100; i >= 1; i-- {
		l.ms = append(l.ms, float64(i))
	}
	if p50, p99 := l.percentiles(); p50 != 50 || p99 != 99 {
		t.Errorf("1..100: p50 %g p99 %g, want 50 99", p50, p99)
	}
}

func TestRatiosAndGoals(t *testing.T) {
	row := func(target, w string, ops, p50 float64) map[string]any {
		return map[string]any{"target": target, "workload": w, "ops_s": ops, "p50_ms": p50}
	}
	rep := &Report{Rows: []map[string]any{
		row(PeerFuse2fs, "fio-randwrite-fsync", 100, 1.0),
		row(PeerVLFS, "fio-randwrite-fsync", 400, 0.5),
		row(PeerLoopback, "fio-randwrite-fsync", 200, 0.75),
		row(PeerFuse2fs, "meta-create", 1000, 0.1),
		row(PeerVLFS, "meta-create", 1500, 0.05),
		row(PeerLoopback, "varmail", 0, 0), // a zero peer gives no ratio
		row(PeerVLFS, "varmail", 10, 1),
	}}
	v := rep.Rows[1]
	for k, x := range map[string]float64{"fsync_wall_us_p50": 188, "plan_wall_us_p50": 16, "volume_wall_us_p50": 172, "flush_wall_us_p50": 139} {
		v[k] = x
	}
	addRatios(rep)
	if v["ops_x_fuse2fs"] != 4.0 || v["p50_x_fuse2fs"] != 0.5 {
		t.Errorf("vlfs ratios: %v", v)
	}
	if _, ok := v["ops_x_vlfs"]; ok {
		t.Errorf("a row has a ratio to itself: %v", v)
	}
	if _, ok := rep.Rows[6]["ops_x_loopback"]; ok {
		t.Errorf("ratio to a zero peer: %v", rep.Rows[6])
	}
	notes := strings.Join(targetNotes(rep.Rows), "\n")
	for _, want := range []string{
		"write+fsync p50 at most 0.7x fuse2fs: measured 0.50x (MET)",
		"write+fsync (wall): the pass-through loopback's p50 is 0.75x fuse2fs's; in vlfs's server, medians: fsync 188 us, commit plan 16 us, volume part 172 us, device flush (fdatasync) 139 us",
		"creates at least 2x fuse2fs's rate: measured 1.50x (MISSED)",
		"varmail ops/s at least 2x loopback: not measured",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestGammaSizeMean(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const n = 20000
	sum := 0.0
	for range n {
		s := gammaSize(rng, 16384, 1.5)
		if s < 1 {
			t.Fatalf("size %d", s)
		}
		sum += float64(s)
	}
	if mean := sum / n; mean < 15000 || mean > 17800 {
		t.Errorf("mean size %.0f, want about 16384", mean)
	}
}

// TestPeersRun runs the whole benchmark on small sizes when
// VLFS_PEERS_RUN=1 (it mounts file systems and takes a minute); the CLI
// test in cmd/vlfs runs a tiny one by default.
func TestPeersRun(t *testing.T) {
	if os.Getenv("VLFS_PEERS_RUN") == "" {
		t.Skip("set VLFS_PEERS_RUN=1 (and VLFS_PEERS_LOOPBACK=binary) to run")
	}
	m, err := disk.Resolve("st19101")
	if err != nil {
		t.Fatal(err)
	}
	cfg := PeersConfig{Model: m, DiskName: "st19101", WorkDir: t.TempDir(), Targets: PeerTargets(),
		Workloads: PeerWorkloads(), Sizes: QuickPeersSizes(), Quick: true, Logf: t.Logf,
		Loopback: os.Getenv("VLFS_PEERS_LOOPBACK"), LoopbackWhy: "VLFS_PEERS_LOOPBACK unset"}
	rep, err := RunPeers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteTable(&b)
	t.Log("\n" + b.String())
}

// TestCostsWall: the wall-clock medians come from the samples between the
// two snapshots only.
func TestCostsWall(t *testing.T) {
	var fsync, flush wallhist.Hist
	for range 100 {
		fsync.Record(time.Millisecond)
	}
	a := &serverSnapshot{wall: vlfs.WallStats{Fsync: fsync.Snapshot()}, flushWall: flush.Snapshot()}
	for range 10 {
		fsync.Record(200 * time.Microsecond)
		flush.Record(130 * time.Microsecond)
	}
	b := &serverSnapshot{fsyncs: 10, flushes: 10, wall: vlfs.WallStats{Fsync: fsync.Snapshot()}, flushWall: flush.Snapshot()}
	c := a.costs(b, 10)
	for key, want := range map[string]float64{"fsync_wall_us_p50": 200, "flush_wall_us_p50": 130} {
		got, ok := c[key].(float64)
		if !ok || got < want*15/16 || got > want*17/16 {
			t.Errorf("%s = %v, want %v within 1/16", key, c[key], want)
		}
	}
	if _, ok := c["plan_wall_us_p50"]; ok {
		t.Errorf("plan_wall_us_p50 reported with no commit timed: %v", c)
	}
}
