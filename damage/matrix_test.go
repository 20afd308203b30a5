package damage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// testImage is a 16 MiB image with files in several inode blocks, an
// indirect block, a numbered node, directories, xattrs and a checkpoint
// with directory blocks (many synced commits move the log window).
func testImage(t *testing.T) *device.Mem {
	t.Helper()
	return testImageVersion(t, 0)
}

// testImageVersion is testImage at file-system version v (0: the default).
func testImageVersion(t *testing.T, v uint32) *device.Mem {
	t.Helper()
	return testImageWith(t, v, false)
}

// testImageWith is testImage at file-system version v, stopped as builds
// before piece copies did if keepLog (vld.Options.KeepLog).
func testImageWith(t *testing.T, v uint32, keepLog bool) *device.Mem {
	t.Helper()
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	dev := device.NewMem(16 << 20)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Version: v}); err != nil {
		t.Fatal(err)
	}
	vo := vlfs.VolumeOptions(vlfs.Options{})
	vo.KeepLog = keepLog
	fs, err := vlfs.MountWith(noClose{dev}, vo, vlfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	d, err := fs.Mkdir(vlfs.RootIno, "d", 0o755, 0, 0)
	must(err)
	for i := range 40 {
		a, err := fs.Create(d.Ino, fmt.Sprintf("f%02d", i), 0o644, 0, 0)
		must(err)
		_, err = fs.Write(a.Ino, 0, bytes.Repeat([]byte{byte(i)}, 100+i*900))
		must(err)
		if i%5 == 0 {
			must(fs.Setxattr(a.Ino, "user.k", []byte("v"), 0))
		}
		must(fs.Sync())
	}
	big, err := fs.Create(vlfs.RootIno, "big", 0o644, 0, 0)
	must(err)
	_, err = fs.Write(big.Ino, 0, bytes.Repeat([]byte("big."), 600<<10)) // single and double indirect
	must(err)
	for i := range 1100 { // more log entries than a checkpoint waits for (1024): its directory
		_, err = fs.Write(big.Ino, int64(i)*4096, []byte("rewritten"))
		must(err)
		must(fs.Fsync(big.Ino, true))
	}
	must(fs.Close())
	return dev
}

// TestMatrix runs the default kinds, two blocks each, every damage: no
// failure, every case repaired, and every kind found in the image.
func TestMatrix(t *testing.T) {
	img := testImage(t)
	rep, err := Run(Config{Image: img, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) > 0 {
		t.Fatalf("the test image has no block of %v", rep.Missing)
	}
	for _, r := range rep.Rows {
		t.Logf("%-22s %-6s cases %d detected %d repaired %d  intact %d moved %d truncated %d lost %d  failed %d",
			r.Kind, r.Damage, r.Cases, r.Detected, r.Repaired, r.Intact, r.Moved, r.Truncated, r.Lost, r.Failed)
		if r.Repaired != r.Cases {
			t.Errorf("%s/%s: %d of %d cases repaired", r.Kind, r.Damage, r.Repaired, r.Cases)
		}
	}
	for _, c := range rep.Cases {
		for _, f := range c.Failures {
			t.Errorf("%s/%s at %d: %s", c.Kind, c.Damage, c.Addr, f)
		}
	}
	if rep.Files < 41 {
		t.Fatalf("%d files seen in the image", rep.Files)
	}
}

// TestMatrixSeesUndetectedData: a version-3 image carries no data
// checksums, so random bytes in a data block read back as the file's: the
// matrix must report that as a failure (it is what version 4 fixes).
func TestMatrixSeesUndetectedData(t *testing.T) {
	rep, err := Run(Config{Image: testImageVersion(t, vondisk.FSVersionRecords), Kinds: []string{vlfs.MetaData}, Damages: []string{"random"}, Samples: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failures == 0 {
		t.Fatalf("random bytes in %d data blocks, and no failure reported: %+v", len(rep.Cases), rep.Rows)
	}
	t.Logf("first failure: %s", rep.Cases[0].Failures)
}

// TestMatrixDataReadsEIO: on version 4 every damage to a data block (a
// stale older version too) is found, the repair leaves the rest clean, and the file it held reads EIO
// (never wrong bytes) while every other file is intact.
func TestMatrixDataReadsEIO(t *testing.T) {
	rep, err := Run(Config{Image: testImage(t), Kinds: []string{vlfs.MetaData}, Samples: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cases {
		if !c.Detected || !c.Repaired || c.Unreadable != 1 || len(c.Failures) > 0 {
			t.Errorf("%s at %d: detected %v repaired %v, %d files read EIO, failures %v", c.Damage, c.Addr, c.Detected, c.Repaired, c.Unreadable, c.Failures)
		}
	}
	if len(rep.Cases) != 4*len(Damages) {
		t.Fatalf("%d cases, want 4 blocks x %d damages", len(rep.Cases), len(Damages))
	}
}

// TestMatrixLogKinds runs the tail and the single-copy log entries of an
// image stopped as builds before piece copies did (KeepLog: a clean stop
// now copies the pieces and leaves no entry; TestMatrix's piece-copy rows
// cover that). The tail must hold (a damaged tail costs the window scan,
// nothing else); a damaged log entry must be found (after a clean stop
// the tail's piece digest tells a damaged live entry from a recycled one)
// and the repair must leave a clean image. What such a case loses (the
// entry's pieces fall back to older versions) is logged: docs/fsck.md
// gives it. A log entry, written once, has no stale older version: that
// row is skipped, and says why.
func TestMatrixLogKinds(t *testing.T) {
	img := testImageWith(t, 0, true)
	rep, err := Run(Config{Image: img, Kinds: []string{KindTail, KindLogRoot, KindLogEntry}, Samples: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		t.Logf("%-10s %-6s cases %d detected %d repaired %d intact %d lost %d failed %d", r.Kind, r.Damage, r.Cases, r.Detected, r.Repaired, r.Intact, r.Lost, r.Failed)
	}
	for _, c := range rep.Cases {
		switch {
		case c.Kind == KindTail && len(c.Failures) > 0:
			t.Errorf("tail/%s: %v", c.Damage, c.Failures)
		case c.Kind != KindTail && (!c.Detected || !c.Repaired):
			t.Errorf("%s/%s at %d: detected %v, repaired %v: %v", c.Kind, c.Damage, c.Addr, c.Detected, c.Repaired, c.Failures)
		case len(c.Failures) > 0:
			t.Logf("%s/%s at %d: %v", c.Kind, c.Damage, c.Addr, c.Failures[0])
		}
	}
	if len(rep.Missing) > 0 {
		t.Fatalf("no block of %v", rep.Missing)
	}
	for _, k := range []string{KindLogRoot, KindLogEntry} {
		if !slices.ContainsFunc(rep.Skipped, func(s Skip) bool { return s.Kind == k && s.Damage == DamageStale && s.Reason != "" }) {
			t.Errorf("%s/stale not reported skipped: %+v", k, rep.Skipped)
		}
	}
}
