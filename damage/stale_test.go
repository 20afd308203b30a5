package damage

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// fsKinds are the file system's own blocks, whose older version only a
// checksum in the pointer (version 4) can tell from the newer one.
var fsKinds = []string{vlfs.MetaInodeBlock, vlfs.MetaIndirect, vlfs.MetaDirectory, vlfs.MetaXattr, vlfs.MetaData}

// TestMatrixStale: on version 4 the older version of every default kind
// that has one is found by fsck and repaired, every file it did not hold
// is byte-identical to the state after the change that made it, and a
// data block's file reads EIO there; the superblock and the piece
// copies, written once, are reported skipped with their reason, never
// silently left out.
func TestMatrixStale(t *testing.T) {
	rep, err := Run(Config{Image: testImage(t), Damages: []string{DamageStale}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) > 0 {
		t.Fatalf("the test image has no block of %v", rep.Missing)
	}
	var skipped []string
	for _, s := range rep.Skipped {
		if s.Damage != DamageStale || s.Reason == "" {
			t.Errorf("skipped without a reason: %+v", s)
		}
		skipped = append(skipped, s.Kind)
	}
	if !slices.Equal(skipped, []string{KindSuperblock, KindPieceCopy}) {
		t.Fatalf("skipped %+v, want the superblock and the piece copies, written once", rep.Skipped)
	}
	ran := map[string]bool{}
	for _, c := range rep.Cases {
		ran[c.Kind] = true
		t.Logf("%-22s at %d (was at %d): detected %v repaired %v intact %d moved %d truncated %d lost %d EIO %d",
			c.Kind, c.Addr, c.StaleOf, c.Detected, c.Repaired, c.Intact, c.Moved, c.Truncated, c.Lost, c.Unreadable)
		if c.StaleOf == 0 || (c.Addr == c.StaleOf) != slices.Contains([]string{KindSlot, KindTail}, c.Kind) {
			t.Errorf("%s: older version from block %d put at %d", c.Kind, c.StaleOf, c.Addr)
		}
		if c.Kind == KindTail {
			// A hint recovery checks against the checkpoint: the older
			// tail names the previous stop's checkpoint, so the mount scans
			// the log instead. Nothing is damaged, so nothing is found;
			// every file must show the newer state.
			if !c.Repaired || len(c.Failures) > 0 {
				t.Errorf("tail at %d: repaired %v: %v", c.Addr, c.Repaired, c.Failures)
			}
			continue
		}
		if !c.Detected || !c.Repaired || len(c.Failures) > 0 {
			t.Errorf("%s at %d: detected %v repaired %v: %v", c.Kind, c.Addr, c.Detected, c.Repaired, c.Failures)
		}
		if c.Kind == vlfs.MetaData && c.Unreadable != 1 {
			t.Errorf("data at %d: %d files read EIO, want the one it held", c.Addr, c.Unreadable)
		}
	}
	for _, k := range DefaultKinds {
		if !ran[k] && k != KindSuperblock && k != KindPieceCopy {
			t.Errorf("no stale case of %s", k)
		}
	}
}

// TestMatrixStaleV3 is version 3's expectation: no checksum in the
// pointers, so the older version of a file-system block reads as the
// newer one's and fsck finds nothing (an older node above the leaves that
// lost a child may leave that child's blocks for fsck to find, and the
// file still reads wrong bytes). The matrix must say so: every such case
// fails, naming the undetected older version or, for data and indirect
// blocks, the wrong bytes. The volume's checkpoint slots and
// directory do not depend on the file-system version: their older
// versions are found and repaired as on version 4.
func TestMatrixStaleV3(t *testing.T) {
	kinds := append(slices.Clone(fsKinds), KindSlot, KindCkptDir)
	rep, err := Run(Config{Image: testImageVersion(t, vondisk.FSVersionRecords), Kinds: kinds, Damages: []string{DamageStale}, Samples: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != len(kinds) {
		t.Fatalf("%d cases of %d kinds (missing %v)", len(rep.Cases), len(kinds), rep.Missing)
	}
	for _, c := range rep.Cases {
		t.Logf("%-22s at %d (was at %d): detected %v repaired %v: %v", c.Kind, c.Addr, c.StaleOf, c.Detected, c.Repaired, c.Failures)
		if !slices.Contains(fsKinds, c.Kind) {
			if !c.Detected || !c.Repaired || len(c.Failures) > 0 {
				t.Errorf("%s at %d: detected %v repaired %v: %v", c.Kind, c.Addr, c.Detected, c.Repaired, c.Failures)
			}
			continue
		}
		if len(c.Failures) == 0 || !strings.Contains(c.Failures[0], "not detected") && !strings.Contains(c.Failures[0], "wrong bytes") {
			t.Errorf("%s at %d on version 3: detected %v, failures %v; want it reported as failed", c.Kind, c.Addr, c.Detected, c.Failures)
		}
		if (c.Kind == vlfs.MetaData || c.Kind == vlfs.MetaIndirect) && !slices.ContainsFunc(c.Failures, func(f string) bool { return strings.Contains(f, "wrong bytes") }) {
			t.Errorf("%s at %d on version 3: the older bytes read back, and no failure says so: %v", c.Kind, c.Addr, c.Failures)
		}
	}
}

// TestMatrixStaleOverUnwritten: on version 5 a file fallocate reserved
// has indirect blocks over unwritten pointers only, with no data block
// under them for the stale change to write. A stale case then takes an
// indirect block that has one (here the written file's), and when none
// is left it is reported skipped with the reason, never failed for want
// of an older version (it failed, "no older version made", before).
func TestMatrixStaleOverUnwritten(t *testing.T) {
	for _, written := range []bool{true, false} {
		m, err := disk.Preset("st19101")
		if err != nil {
			t.Fatal(err)
		}
		dev := device.NewMem(32 << 20)
		if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m}); err != nil {
			t.Fatal(err)
		}
		fs, err := vlfs.Mount(noClose{dev}, vlfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := fs.Create(vlfs.RootIno, "reserved", 0o644, 0, 0)
		if err == nil {
			err = fs.Fallocate(r.Ino, 0, 0, 8<<20)
		}
		if err == nil && written {
			var w vlfs.Attr
			if w, err = fs.Create(vlfs.RootIno, "written", 0o644, 0, 0); err == nil {
				_, err = fs.Write(w.Ino, 0, bytes.Repeat([]byte("w"), 200<<10))
			}
		}
		if err == nil {
			err = fs.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(Config{Image: dev, Kinds: []string{vlfs.MetaIndirect}, Damages: []string{DamageStale}, Samples: 8, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Cases {
			if len(c.Failures) > 0 || !c.Detected || !c.Repaired {
				t.Errorf("written file %v: stale indirect at %d: detected %v repaired %v: %v", written, c.Addr, c.Detected, c.Repaired, c.Failures)
			}
		}
		skipped := slices.ContainsFunc(rep.Skipped, func(s Skip) bool { return s.Kind == vlfs.MetaIndirect && s.Reason != "" })
		if written && len(rep.Cases) == 0 || !written && (len(rep.Cases) != 0 || !skipped) {
			t.Fatalf("written file %v: %d stale cases, skipped %+v", written, len(rep.Cases), rep.Skipped)
		}
		t.Logf("written file %v: %d stale indirect cases, skipped %v", written, len(rep.Cases), skipped)
	}
}
