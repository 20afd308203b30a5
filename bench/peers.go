package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// Target names of the peers benchmark, in run order.
const (
	PeerNative   = "native"   // a directory of the host file system
	PeerFuse2fs  = "fuse2fs"  // ext4 image over FUSE (e2fsprogs)
	PeerLoopback = "loopback" // go-fuse pass-through over a native directory
	PeerVLFS     = "vlfs"     // vlfs on the virtual disk clock
)

// PeerTargets lists every target, in run order.
func PeerTargets() []string { return []string{PeerNative, PeerFuse2fs, PeerLoopback, PeerVLFS} }

// PeerWorkloads lists every workload group, in run order.
func PeerWorkloads() []string {
	return []string{"fio", "varmail", "oltp", "meta", "sqlite", "mix"}
}

// PeersConfig configures RunPeers. Zero sizes take PeersSizes defaults.
type PeersConfig struct {
	Model     *disk.Model // vlfs's simulated disk
	DiskName  string      // as given, for the report
	WorkDir   string      // images and native directories live here (one host file system)
	Targets   []string    // subset of PeerTargets, run in PeerTargets order
	Workloads []string    // subset of PeerWorkloads
	Sizes     PeersSizes
	Quick     bool // reported only; the caller picks QuickPeersSizes
	// SparseImages leaves the fuse2fs and vlfs image files sparse instead
	// of writing them full of zeros first (see makeImage).
	SparseImages bool
	// Loopback is the vlfs-loopback binary; "" skips the loopback target
	// with a note (LoopbackWhy says why).
	Loopback, LoopbackWhy string
	// CPUProfile, if set, receives a CPU profile of this process while the
	// vlfs target runs (the in-process vlfs server and the Go drivers; with
	// Rounds, its last run).
	CPUProfile string
	// ProfileDir, if set, receives mutex.pprof and block.pprof of this
	// process while the vlfs target runs (its last run with Rounds).
	ProfileDir string
	// Head is the profile vlfs's eager placement writes by (vlfs mount
	// --head profile:FILE); nil: the simulated disk's head.
	Head *profile.Profile
	// Rounds > 1 runs every target that many times, rotating which goes
	// first, and reports medians (peers_rounds.go).
	Rounds int
	// FSVersion is the vlfs image's file-system version (0: mkfs's default).
	FSVersion uint32
	// Placement is the vlfs image's block placement (0: eager).
	Placement vld.Placement
	Logf      func(format string, args ...any) // progress (stderr)
}

// PeersSizes are the workload sizes.
type PeersSizes struct {
	ImageBytes   int64         // fuse2fs and vlfs image size
	SyncFileSize int64         // file of the random write+fsync job
	SyncIOs      int           // writes of the fsync and fdatasync jobs
	SeqBytes     int64         // sequential write/read file
	RandReadIOs  int           // 4 KiB random reads
	MetaFiles    int           // files of the metadata storm
	MetaLimit    time.Duration // cap on its create phase (0: none)
	Duration     time.Duration // each of varmail, oltp, sqlite
	VarmailFiles int           // filebench varmail nfiles
	OLTPShadows  int           // filebench oltp nshadows
	OLTPFileSize int64         // filebench oltp filesize (and logfilesize)
	SQLiteRows   int           // TPC-B accounts
	FioRuntime   time.Duration // cap on each fio job
	MixDuration  time.Duration // the stress-ng mix (peers_mix.go)
}

// DefaultPeersSizes is the full run: issue 3's sizes (1 GiB sequential,
// 100,000 files) and filebench's parameters.
func DefaultPeersSizes() PeersSizes {
	return PeersSizes{
		ImageBytes: 4 << 30, SyncFileSize: 64 << 20, SyncIOs: 2000, SeqBytes: 1 << 30,
		RandReadIOs: 5000, MetaFiles: 100000, MetaLimit: 90 * time.Second, Duration: 15 * time.Second,
		VarmailFiles: 1000, OLTPShadows: 200, OLTPFileSize: 10 << 20, SQLiteRows: 100000,
		FioRuntime: 120 * time.Second, MixDuration: 45 * time.Second,
	}
}

// QuickPeersSizes is --quick: the whole run in well under two minutes.
func QuickPeersSizes() PeersSizes {
	return PeersSizes{
		ImageBytes: 512 << 20, SyncFileSize: 8 << 20, SyncIOs: 200, SeqBytes: 64 << 20,
		RandReadIOs: 500, MetaFiles: 2000, MetaLimit: 20 * time.Second, Duration: 2 * time.Second,
		VarmailFiles: 200, OLTPShadows: 20, OLTPFileSize: 2 << 20, SQLiteRows: 5000,
		FioRuntime: 20 * time.Second, MixDuration: 5 * time.Second,
	}
}

// peerResult is one measured workload on one target.
type peerResult struct {
	workload string
	ops      int64
	bytes    int64
	elapsed  time.Duration
	p50, p99 float64 // ms
	extra    map[string]any
}

// row turns a result into report metrics.
func (r peerResult) row(target string) map[string]any {
	s := r.elapsed.Seconds()
	row := map[string]any{
		"target": target, "workload": r.workload,
		"ops_s": float64(r.ops) / s, "mb_s": float64(r.bytes) / 1e6 / s,
		"p50_ms": r.p50, "p99_ms": r.p99, "clock": ClockWall,
	}
	for k, v := range r.extra {
		row[k] = v
	}
	return row
}

// RunPeers runs every selected workload on every selected target, one
// target after another (cfg.Rounds times), and reports them side by side
// with ratios.
func RunPeers(cfg PeersConfig) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	rep := &Report{
		Bench: "peers", Clock: ClockWall, Disk: cfg.Model.Params(),
		Params:  peersParams(cfg),
		Columns: []string{"target", "workload", "clock", "head_model", "server_worst_op", "ops_s", "mb_s", "p50_ms", "p99_ms"},
	}
	rep.Disk["preset"] = cfg.DiskName
	env := probePeers(cfg)
	rep.Notes = append(rep.Notes, env.notes...)
	var targets []string
	for _, t := range PeerTargets() {
		if slices.Contains(cfg.Targets, t) && env.skip[t] == "" {
			targets = append(targets, t)
		}
	}
	rounds := make([][]map[string]any, max(cfg.Rounds, 1))
	for i := range rounds {
		if len(rounds) > 1 {
			cfg.Logf("peers: round %d of %d", i+1, len(rounds))
		}
		for _, t := range roundOrder(targets, i) {
			rows, err := runTarget(cfg, env, t)
			if err != nil {
				return nil, fmt.Errorf("peers: %s: %w", t, err)
			}
			rounds[i] = append(rounds[i], rows...)
		}
	}
	rep.Rows = mergeRounds(rounds)
	rep.Notes = append(rep.Notes, roundNotes(rounds)...)
	addRatios(rep)
	rep.Columns = append(rep.Columns, ratioColumns()...)
	rep.Notes = append(rep.Notes, targetNotes(rep.Rows)...)
	return rep, nil
}

func peersParams(cfg PeersConfig) map[string]any {
	s := cfg.Sizes
	host, _ := os.Hostname()
	return map[string]any{
		"quick": cfg.Quick, "sparse_images": cfg.SparseImages, "image_bytes": s.ImageBytes, "seq_bytes": s.SeqBytes,
		"sync_ios": s.SyncIOs, "sync_file_bytes": s.SyncFileSize, "randread_ios": s.RandReadIOs,
		"meta_files": s.MetaFiles, "meta_limit_ms": float64(s.MetaLimit.Milliseconds()), "duration_ms": float64(s.Duration.Milliseconds()),
		"mix_duration_ms": float64(s.MixDuration.Milliseconds()),
		"varmail_files":   s.VarmailFiles, "oltp_shadows": s.OLTPShadows, "oltp_file_bytes": s.OLTPFileSize,
		"sqlite_accounts": s.SQLiteRows, "host": host, "date": time.Now().UTC().Format(time.RFC3339),
		"targets": strings.Join(cfg.Targets, ","), "workloads": strings.Join(cfg.Workloads, ","),
		"head":   headName(cfg.Head), // vlfs's; its rows' head_model is what the volume says
		"rounds": max(cfg.Rounds, 1),
	}
}

// runTarget starts one target, runs the workloads in it and stops it.
func runTarget(cfg PeersConfig, env peersEnv, name string) ([]map[string]any, error) {
	cfg.Logf("peers: starting %s", name)
	t, err := startTarget(cfg, name)
	if err != nil {
		return nil, err
	}
	rows, err := runWorkloads(cfg, env, t)
	if serr := t.stop(); err == nil && serr != nil {
		err = fmt.Errorf("stopping: %w", serr)
	}
	return rows, err
}

// runWorkloads runs the selected workload groups in t's directory.
func runWorkloads(cfg PeersConfig, env peersEnv, t peerTarget) ([]map[string]any, error) {
	var rows []map[string]any
	for _, w := range peerGroups() {
		if !slices.Contains(cfg.Workloads, w.name) || env.skip[w.name] != "" {
			continue
		}
		dir, err := os.MkdirTemp(t.dir(), w.name+"-")
		if err != nil {
			return nil, err
		}
		res, err := w.run(cfg, t, dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("%s: cleaning up: %w", w.name, err)
		}
		for _, r := range res {
			cfg.Logf("peers: %-8s %-18s %10.1f ops/s %9.2f MB/s  p50 %8.3f ms  p99 %8.3f ms",
				t.name(), r.workload, float64(r.ops)/r.elapsed.Seconds(), float64(r.bytes)/1e6/r.elapsed.Seconds(), r.p50, r.p99)
			rows = append(rows, r.row(t.name()))
		}
	}
	return rows, nil
}

// peerGroup is one workload group: fio jobs, a personality, a storm.
type peerGroup struct {
	name string
	run  func(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error)
}

func peerGroups() []peerGroup {
	return []peerGroup{
		{"fio", runFioJobs},
		{"varmail", runVarmail},
		{"oltp", runOLTP},
		{"meta", runMetaStorm},
		{"sqlite", runSQLite},
		{"mix", runMix},
	}
}
