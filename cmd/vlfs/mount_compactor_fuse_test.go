package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestMountCompactorFUSE is the compactor in a real mount: files are
// written and every other one deleted, so every track has holes; while the
// mount is idle the compactor (on by default) must move blocks and empty
// tracks, shown by vlfs stats; the files left must read back intact, in
// the mount and after a remount, and fsck must find the image clean.
func TestMountCompactorFUSE(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "a.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mkfs", "--quiet", "--size", "16MiB", img)
	mustRun(t, "mount", "--background", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })

	const files, size = 600, 16 << 10 // 9.4 MiB of 16
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	content := func(i int) []byte {
		b := make([]byte, size)
		rand.New(rand.NewSource(seed + int64(i))).Read(b)
		return b
	}
	name := func(i int) string { return filepath.Join(mnt, fmt.Sprintf("f%04d", i)) }
	// Each file is fsync'd, so it is placed before the deletes (FUSE
	// does not pass syncfs on to the server).
	for i := range files {
		writeFileSynced(t, name(i), content(i))
	}
	keep := map[int]bool{}
	for i := range files {
		if i%2 == 0 || rng.Intn(4) == 0 { // about 5/8 deleted
			if err := os.Remove(name(i)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		keep[i] = true
	}
	syncDir(t, mnt)

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
	verify := func(when string) {
		for i := range keep {
			got, err := os.ReadFile(name(i))
			if err != nil || !bytes.Equal(got, content(i)) {
				t.Fatalf("%s: %s: %d bytes, %v", when, name(i), len(got), err)
			}
		}
	}
	verify("after compaction")
	mustRun(t, "umount", mnt)
	fstest.Check(t, img)
	mustRun(t, "mount", "--background", "-o", "ro", img, mnt)
	verify("after a remount")
	mustRun(t, "umount", mnt)
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
