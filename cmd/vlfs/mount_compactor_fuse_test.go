package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestMountCompactorFUSE is the compactor in real mounts (one build of
// the binary for both).
func TestMountCompactorFUSE(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	t.Run("idle", mountCompactorIdle)
	t.Run("kill", mountCompactorKill)
}

// mountCompactorIdle: files are written and most deleted, so every track
// has holes; while the mount is idle the compactor (on by default) must
// move blocks and empty tracks, shown by vlfs stats; the files left must
// read back intact, in the mount and after a remount, and fsck must find
// the image clean.
func mountCompactorIdle(t *testing.T) {
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "a.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mkfs", "--quiet", "--size", "16MiB", img)
	mustRun(t, "mount", "--background", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })

	fr := fragmentMount(t, mnt, compactSeed(t))

	// Idle: poll until the compactor reaches its target, or moves nothing
	// for 2 s.
	deadline := time.Now().Add(20 * time.Second)
	var c *fusefs.CompactorReport
	t0 := time.Now()
	for last, still := int64(-1), 0; time.Now().Before(deadline) && still < 8; {
		time.Sleep(250 * time.Millisecond)
		c = statsJSON(t, mnt).Compactor
		if c == nil {
			t.Fatal("stats of the mount show no compactor; it is on by default")
		}
		if c.EmptyTracks >= c.TargetTracks {
			break
		}
		if still++; c.BlocksMoved != last {
			still = 0
		}
		last = c.BlocksMoved
	}
	t.Logf("after %v wall of idle time:", time.Since(t0).Round(time.Millisecond))
	t.Logf("compactor: %d blocks moved, %d tracks emptied, empty %d of target %d, %.1f ms simulated work in %d steps, %d requests waited (max %.2f ms wall)",
		c.BlocksMoved, c.TracksEmptied, c.EmptyTracks, c.TargetTracks, c.WorkMs, c.Steps, c.Interrupted, c.MaxInterferenceMs)
	if c.BlocksMoved == 0 || c.TracksEmptied == 0 {
		t.Fatalf("after idle time the compactor moved %d blocks and emptied %d tracks", c.BlocksMoved, c.TracksEmptied)
	}
	fr.verify(t, "after compaction")
	mustRun(t, "umount", mnt)
	fstest.Check(t, img)
	mustRun(t, "mount", "--background", "-o", "ro", img, mnt)
	fr.verify(t, "after a remount")
	mustRun(t, "umount", mnt)
}

// mountCompactorKill kills the mount's daemon (SIGKILL) while its
// compactor is moving blocks, three times (each remount resumes from the
// crashed state): each time fsck must find the image clean, and at the
// end every file fsync'd before must read back intact. A move is
// committed before the old copy is freed, so a crash loses nothing.
func mountCompactorKill(t *testing.T) {
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "a.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mkfs", "--quiet", "--size", "16MiB", img)
	mustRun(t, "mount", "--background", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	seed := compactSeed(t)
	fr := fragmentMount(t, mnt, seed)

	// Kill as soon as the compactor has moved something (short of its
	// target, so it is still working); then mount again, so that it
	// resumes from the crashed state, and kill it again, a random idle
	// time later.
	rng := rand.New(rand.NewSource(seed))
	for cycle := range 3 {
		if cycle > 0 {
			mustRun(t, "mount", "--background", img, mnt)
			time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
		}
		deadline := time.Now().Add(10 * time.Second)
		var r fusefs.Report
		for time.Now().Before(deadline) {
			r = statsJSON(t, mnt)
			if c := r.Compactor; c != nil && (c.BlocksMoved > 0 || c.TargetTracks > 0 && c.EmptyTracks >= c.TargetTracks) {
				break
			}
			time.Sleep(time.Duration(rng.Intn(40)+10) * time.Millisecond)
		}
		c := r.Compactor
		if c == nil || r.PID == 0 || c.BlocksMoved == 0 && (c.TargetTracks == 0 || c.EmptyTracks < c.TargetTracks) {
			t.Fatalf("cycle %d: the compactor did not start moving in 10 s: %+v", cycle, c)
		}
		if err := syscall.Kill(r.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		t.Logf("cycle %d: killed the daemon after %d blocks moved (empty tracks %d of target %d)", cycle, c.BlocksMoved, c.EmptyTracks, c.TargetTracks)
		for i := 0; syscall.Kill(r.PID, 0) == nil && i < 200; i++ {
			time.Sleep(10 * time.Millisecond) // the image lock goes with the process
		}
		fusefs.Unmount(mnt, true)
		fstest.CheckRecovered(t, img)
	}
	mustRun(t, "mount", "--background", "-o", "ro", img, mnt)
	fr.verify(t, "after the kill and a remount")
	mustRun(t, "umount", mnt)
}

var compactSeedFlag = flag.Int64("compactor.seed", 0, "replay the compactor mount tests with this seed")

// compactSeed is the seed of a randomised mount test, printed for replay.
func compactSeed(t *testing.T) int64 {
	seed := testseed.Pick(t, *compactSeedFlag, "compactor.seed")
	return seed
}

// fragmented is a mount's files after fragmentMount: which are left and
// what they hold.
type fragmented struct {
	mnt  string
	seed int64
	keep map[int]bool
}

const fragFiles, fragSize = 600, 16 << 10 // 9.4 MiB: most of a 16 MiB image

func (f fragmented) name(i int) string { return filepath.Join(f.mnt, fmt.Sprintf("f%04d", i)) }

func (f fragmented) content(i int) []byte {
	b := make([]byte, fragSize)
	rand.New(rand.NewSource(f.seed + int64(i))).Read(b)
	return b
}

// fragmentMount writes fsync'd files, then deletes most of them at
// random, so every track has holes; each file is fsync'd so it is placed
// before the deletes (FUSE does not pass syncfs on to the server).
func fragmentMount(t *testing.T, mnt string, seed int64) fragmented {
	t.Helper()
	f := fragmented{mnt: mnt, seed: seed, keep: map[int]bool{}}
	for i := range fragFiles {
		writeFileSynced(t, f.name(i), f.content(i))
	}
	rng := rand.New(rand.NewSource(seed))
	for i := range fragFiles {
		if i%2 == 0 || rng.Intn(4) == 0 { // about 5/8 deleted
			if err := os.Remove(f.name(i)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f.keep[i] = true
	}
	syncDir(t, mnt)
	return f
}

// verify reads back every file left.
func (f fragmented) verify(t *testing.T, when string) {
	t.Helper()
	for i := range f.keep {
		got, err := os.ReadFile(f.name(i))
		if err != nil || !bytes.Equal(got, f.content(i)) {
			t.Fatalf("%s: %s: %d bytes, %v", when, f.name(i), len(got), err)
		}
	}
}

func writeFileSynced(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// syncDir makes the deletes in dir durable (fsync of the directory).
func syncDir(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}
