package vlfs

import (
	"fmt"
	"testing"
	"time"
)

// TestBigDirectory creates 100,000 entries in one directory; lookups and
// readdir must stay fast (no linear scans, nothing quadratic), before and
// after a remount.
func TestBigDirectory(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 20000
	}
	im := newImage(t, 256<<20)
	fs := im.fs
	d := must(fs.Mkdir(RootIno, "big", 0o755, 0, 0)).ok(t)
	t0 := time.Now()
	for i := range n {
		a, err := fs.Create(d.Ino, fmt.Sprintf("entry-%06d", i), 0o644, 0, 0)
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		fs.Forget(a.Ino, 1)
	}
	create := time.Since(t0)
	must(0, fs.Sync()).ok(t)
	lookupAll := func(fs *FS) time.Duration {
		t0 := time.Now()
		for i := 0; i < n; i += 7 {
			a, err := fs.Lookup(d.Ino, fmt.Sprintf("entry-%06d", i))
			if err != nil {
				t.Fatalf("lookup %d: %v", i, err)
			}
			fs.Forget(a.Ino, 1)
		}
		return time.Since(t0)
	}
	l1 := lookupAll(fs)
	t0 = time.Now()
	ents := must(fs.ReadDir(d.Ino)).ok(t)
	rd := time.Since(t0)
	if len(ents) != n+2 {
		t.Fatalf("readdir: %d entries, want %d", len(ents), n+2)
	}
	for i := 0; i < n; i += 2 {
		must(0, fs.Unlink(d.Ino, fmt.Sprintf("entry-%06d", i))).ok(t)
	}
	t0 = time.Now()
	im.remount()
	remount := time.Since(t0)
	l2 := lookupAll2(t, im.fs, d.Ino, n)
	t.Logf("%d entries: create %v, lookups %v, readdir %v, remount (with checks) %v, lookups after remount %v",
		n, create, l1, rd, remount, l2)
	if l1 > 2*time.Second || rd > time.Second {
		t.Errorf("big directory too slow: lookups %v, readdir %v", l1, rd)
	}
}

func lookupAll2(t *testing.T, fs *FS, dir Ino, n int) time.Duration {
	t0 := time.Now()
	for i := 1; i < n; i += 14 {
		a, err := fs.Lookup(dir, fmt.Sprintf("entry-%06d", i))
		if err != nil {
			t.Fatalf("lookup %d after remount: %v", i, err)
		}
		fs.Forget(a.Ino, 1)
	}
	return time.Since(t0)
}
