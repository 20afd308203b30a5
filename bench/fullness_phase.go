package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/vld"
)

// fullLevels takes target t through every level: fill, then measure.
func fullLevels(cfg FullnessConfig, t peerTarget, name string) ([]map[string]any, error) {
	st, err := statFS(t.dir())
	if err != nil {
		return nil, err
	}
	// The fill leaves FullnessRoom free for the measurement (its 64 large
	// files would not fit at 99 % of a 1 GiB image).
	most := 1 - float64(FullnessRoom)/float64(st.capacity())
	fill, err := newFiller(filepath.Join(t.dir(), "fill"), cfg.Seed)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	for i, level := range cfg.Levels {
		goal := min(level, most)
		t0 := time.Now()
		if err := fill.to(goal, cfg.Logf); err != nil {
			return nil, err
		}
		fillMs := float64(time.Since(t0).Microseconds()) / 1e3
		st, err := statFS(t.dir())
		if err != nil {
			return nil, err
		}
		cfg.Logf("fullness: %s: %.1f%% used (%d fill files) after %.1f s; measuring",
			name, st.used()*100, fill.files, fillMs/1e3)
		row, err := measureLevel(cfg, t, filepath.Join(t.dir(), fmt.Sprintf("level%d", i)))
		if err != nil {
			return nil, fmt.Errorf("at %g%%: %w", level*100, err)
		}
		row["target"], row["level_pct"], row["fill_pct"], row["used_pct"] = name, levelPct(level), goal*100, st.used()*100
		row["fill_files"], row["fill_bytes"], row["fill_ms"] = fill.files, fill.bytes, fillMs
		cfg.Logf("fullness: %-18s %5.1f%%: 200 KB %7.1f files/s, 4 KiB %7.1f files/s, %8.1f creates/s, %8.1f unlinks/s",
			name, st.used()*100, row["write200k_ops_s"], row["write4k_ops_s"], row["create_ops_s"], row["unlink_ops_s"])
		rows = append(rows, row)
	}
	return rows, nil
}

// measureLevel runs the four timed phases in dir (made, then removed, so
// that the next level's fill starts from the fill alone): write+fsync of
// 200 KB files over 64 names, the same with 4 KiB files, creates of empty
// files, and unlinks of them.
func measureLevel(cfg FullnessConfig, t peerTarget, dir string) (map[string]any, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	buf := make([]byte, fullLargeBytes)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros: nothing below may treat them as a hole
	}
	large, err := overwritePhase(t, filepath.Join(dir, "large"), buf, cfg.Duration)
	if err != nil {
		return nil, fmt.Errorf("200 KB write+fsync: %w", err)
	}
	small, err := overwritePhase(t, filepath.Join(dir, "small"), buf[:fullSmallBytes], cfg.Duration)
	if err != nil {
		return nil, fmt.Errorf("4 KiB write+fsync: %w", err)
	}
	names := make([]string, fullCreates)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("c%05d", i))
	}
	creates, err := runPhase(t, func() (int64, error) {
		r, err := metaPhase("create", names, createEmpty, cfg.Duration)
		return r.ops, err
	})
	if err != nil {
		return nil, err
	}
	unlinks, err := runPhase(t, func() (int64, error) {
		r, err := metaPhase("unlink", names[:creates.ops], os.Remove, 0)
		return r.ops, err
	})
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("removing the level's files: %w", err)
	}
	row := map[string]any{}
	for _, p := range []struct {
		key string
		r   phaseResult
	}{{"write200k", large}, {"write4k", small}, {"create", creates}, {"unlink", unlinks}} {
		p.r.addTo(row, p.key)
	}
	row["write200k_ops_s"], row["write4k_ops_s"] = large.rate(), small.rate()
	row["create_ops_s"], row["unlink_ops_s"] = creates.rate(), unlinks.rate()
	blockCosts(row, large, small)
	return row, nil
}

// overwritePhase times writing data to 64 names in dir in turn, each
// written, fsync'd and closed, for d. One pass over the names first,
// untimed, creates them: what is timed is overwriting, the same at every
// level and on every target.
func overwritePhase(t peerTarget, dir string, data []byte, d time.Duration) (phaseResult, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return phaseResult{}, err
	}
	name := func(i int64) string { return filepath.Join(dir, fmt.Sprintf("n%02d", i%fullNames)) }
	for i := range int64(fullNames) {
		if err := writeFsync(name(i), data); err != nil {
			return phaseResult{}, err
		}
	}
	return runPhase(t, func() (int64, error) {
		var n int64
		for start := time.Now(); time.Since(start) < d; n++ {
			if err := writeFsync(name(n), data); err != nil {
				return n, err
			}
		}
		return n, nil
	})
}

// phaseResult is one timed phase: operations, wall time, CPU time of the
// whole process and of the thread that made the calls, and (vlfs) the
// volume's counters before and after.
type phaseResult struct {
	ops              int64
	elapsed          time.Duration
	procCPU, callCPU time.Duration
	vol0, vol1       vld.Stats
	isVLFS           bool
}

// runPhase runs phase on a goroutine locked to its own thread, so that
// the thread's CPU time is the caller's side alone: its system calls,
// and for ext4 the file system's work done in them. The rest of the
// process's CPU time over the phase is vlfs's server (its goroutines
// serving FUSE, committing, and the compactor); nothing else in the
// process runs meanwhile. Kernel threads (ext4's journal, the loop
// device's workers) are nobody's here.
func runPhase(t peerTarget, phase func() (int64, error)) (phaseResult, error) {
	var r phaseResult
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r.vol0, r.isVLFS = volStats(t)
		p0, c0, cerr := cpuTimes()
		if cerr != nil {
			err = cerr
			return
		}
		start := time.Now()
		r.ops, err = phase()
		r.elapsed = time.Since(start)
		p1, c1, cerr := cpuTimes()
		if err == nil {
			err = cerr
		}
		r.procCPU, r.callCPU = p1-p0, c1-c0
		r.vol1, _ = volStats(t)
	}()
	<-done
	if err == nil && r.ops == 0 {
		err = fmt.Errorf("no operation completed in %v", r.elapsed)
	}
	return r, err
}

// cpuTimes returns the user+system CPU time of the process and of the
// calling thread.
func cpuTimes() (proc, thread time.Duration, err error) {
	var p, t unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &p); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &t); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	tv := func(u unix.Rusage) time.Duration {
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return tv(p), tv(t), nil
}

func (r phaseResult) rate() float64 { return float64(r.ops) / r.elapsed.Seconds() }

// serverCPU is the process's CPU time over the phase less the calling
// thread's: vlfs's server.
func (r phaseResult) serverCPU() time.Duration { return max(r.procCPU-r.callCPU, 0) }

func perOpMs(d time.Duration, ops int64) float64 { return float64(d) / 1e6 / float64(ops) }

// addTo puts the phase's CPU per operation in row: the process's (all of
// it: for ext4 the kernel's work in the calls, for vlfs that and the
// server) and, for vlfs, the server's.
func (r phaseResult) addTo(row map[string]any, key string) {
	row["cpu_ms_per_"+key] = perOpMs(r.procCPU, r.ops)
	if r.isVLFS {
		row["server_cpu_ms_per_"+key] = perOpMs(r.serverCPU(), r.ops)
	}
}

// blockCosts adds vlfs's CPU per block written over the two write phases:
// the server's CPU per block the volume wrote, and the allocator's own CPU
// per block it placed (vld.Stats.AllocNs / AllocBlocks).
func blockCosts(row map[string]any, phases ...phaseResult) {
	var cpu time.Duration
	var blocks, allocNs, allocBlocks int64
	for _, p := range phases {
		if !p.isVLFS {
			return
		}
		cpu += p.serverCPU()
		blocks += p.vol1.BlocksWritten - p.vol0.BlocksWritten
		allocNs += p.vol1.AllocNs - p.vol0.AllocNs
		allocBlocks += p.vol1.AllocBlocks - p.vol0.AllocBlocks
	}
	if blocks > 0 {
		row["server_cpu_ms_per_block"] = perOpMs(cpu, blocks)
	}
	row["alloc_cpu_ms_per_block"] = nil
	if allocBlocks > 0 {
		row["alloc_cpu_ms_per_block"] = float64(allocNs) / 1e6 / float64(allocBlocks)
	}
}
