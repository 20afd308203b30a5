package vlfs

import (
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/vlfs/vlfs/compactor"
)

// TestBackgroundCompactor runs a background compactor over the file system
// on the real clock, as a mount does: it must move blocks while the file
// system is idle, count them, stop, and leave a file system that passes
// Check. It logs the
// interference: the extra wall and simulated latency of a foreground
// fsync'd write issued while the compactor is working, against the same
// writes with it stopped.
func TestBackgroundCompactor(t *testing.T) {
	im := newImage(t, 16<<20)
	fragment(t, im.fs, rand.New(rand.NewSource(2)), 160)
	im.remount()
	fs := im.fs
	if err := fs.Compactable(); err != nil {
		t.Fatal(err)
	}
	bg, err := compactor.StartBackground(fs.CompactTarget(), compactor.Config{TargetEmpty: 1, IdleDelayMs: 2, Start: compactor.StartAlways}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	f := must(fs.Create(RootIno, "probe", 0o644, 0, 0)).ok(t)
	on := probeWrites(t, fs, f.Ino, 20, 3*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for bg.Stats().BlocksMoved == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s := bg.Stats()
	if s.BlocksMoved == 0 {
		t.Fatalf("nothing moved in 10 s of idle time: %+v", s)
	}
	if err := bg.Stop(); err != nil {
		t.Fatal(err)
	}
	if moved := fs.MovedBlocks(); moved < s.BlocksMoved {
		t.Errorf("the file system counts %d blocks moved, the compactor %d", moved, s.BlocksMoved)
	}
	off := probeWrites(t, fs, f.Ino, 20, 3*time.Millisecond)
	t.Logf("compactor: %d blocks moved, %d tracks emptied, %.1f ms simulated work, longest step %.1f ms, %d requests waited (max %.2f ms wall)",
		s.BlocksMoved, s.TracksEmptied, s.WorkMs, s.MaxStepMs, s.Interrupted, s.MaxInterferenceMs)
	t.Logf("fsync'd 4 KiB write while compacting: wall median %.2f ms max %.2f ms, simulated mean %.2f ms; compactor stopped: wall median %.2f ms max %.2f ms, simulated mean %.2f ms",
		on.wallMed, on.wallMax, on.simMean, off.wallMed, off.wallMax, off.simMean)
}

type probeResult struct{ wallMed, wallMax, simMean float64 }

// probeWrites does n fsync'd 4 KiB writes, gap apart (idle time for the
// compactor), and measures each one's wall and simulated latency.
func probeWrites(t *testing.T, fs *FS, ino Ino, n int, gap time.Duration) probeResult {
	buf := make([]byte, 4096)
	var walls []float64
	sim := 0.0
	for i := range n {
		time.Sleep(gap)
		t0, s0 := time.Now(), fs.vol.NowMs()
		must(fs.Write(ino, int64(i%8)*4096, buf)).ok(t)
		must(0, fs.Fsync(ino, false)).ok(t)
		walls = append(walls, float64(time.Since(t0))/float64(time.Millisecond))
		sim += fs.vol.NowMs() - s0
	}
	sort.Float64s(walls)
	return probeResult{wallMed: walls[len(walls)/2], wallMax: walls[len(walls)-1], simMean: sim / float64(n)}
}
