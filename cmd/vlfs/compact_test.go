package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// fragmentedImage writes an 8 MiB st19101 logical-disk image, 80 % full
// and fragmented by random synchronous updates, and returns its path and
// a checksum of every logical block.
func fragmentedImage(t *testing.T) (string, map[int64]uint32) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	dev, err := device.OpenFile(img, device.FileOptions{Create: true, Size: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := disk.Preset("st19101")
	if err := logical.Format(dev, vld.FormatOptions{Model: m}); err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	n := d.Blocks() * 8 / 10
	for i := int64(0); i < 2*n; i++ {
		l := i
		if i >= n {
			l = rng.Int63n(n)
		}
		b := make([]byte, d.BlockSize())
		rng.Read(b[:8])
		if err := d.WriteSync(l, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
	}
	sums := sumBlocks(t, d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return img, sums
}

func sumBlocks(t *testing.T, d *logical.Disk) map[int64]uint32 {
	t.Helper()
	out := map[int64]uint32{}
	buf := make([]byte, d.BlockSize())
	for l := int64(0); l < d.Blocks(); l++ {
		if err := d.Read(l, buf); err != nil {
			t.Fatal(err)
		}
		var s uint32
		for _, c := range buf[:8] {
			s = s*31 + uint32(c)
		}
		out[l] = s
	}
	return out
}

func TestCompactImage(t *testing.T) {
	img, sums := fragmentedImage(t)
	var out, errb bytes.Buffer
	if code := run([]string{"compact", "--target", "0.1", "--json", img}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res compactResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("bad JSON %v: %s", err, out.String())
	}
	if res.EmptyAfter < res.TargetTracks || res.EmptyAfter <= res.EmptyBefore || res.BlocksMoved == 0 {
		t.Fatalf("no compaction: %+v", res)
	}
	if !strings.Contains(errb.String(), "] ") || !strings.Contains(errb.String(), "blocks moved") {
		t.Fatalf("no progress bar on stderr: %q", errb.String())
	}
	// The image reopens clean, with the same contents.
	dev, err := device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.Volume().Recovery().Clean {
		t.Fatal("compact left the image without a clean stop")
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if got := d.Volume().EmptyTracks(); got != res.EmptyAfter {
		t.Fatalf("%d empty tracks on reopen, %d reported", got, res.EmptyAfter)
	}
	for l, s := range sumBlocks(t, d) {
		if sums[l] != s {
			t.Fatalf("logical block %d changed", l)
		}
	}
}

func TestCompactText(t *testing.T) {
	img, _ := fragmentedImage(t)
	var out, errb bytes.Buffer
	if code := run([]string{"compact", "--quiet", "--policy", "random", "--target", "0.05", img}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "empty tracks") || errb.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

func TestCompactErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compact"}, exitUsage, "usage"},
		{[]string{"compact", "a", "b"}, exitUsage, "usage"},
		{[]string{"compact", "--target", "2", "x.img"}, exitUsage, "target"},
		{[]string{"compact", "--policy", "lru", "x.img"}, exitUsage, "policy"},
		{[]string{"compact", filepath.Join(dir, "missing.img")}, exitFailure, "missing.img"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.msg)
		}
	}
	// A volume that is neither a logical disk nor a vlfs file system is
	// refused with a reason.
	img := filepath.Join(dir, "other.img")
	dev, err := device.OpenFile(img, device.FileOptions{Create: true, Size: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := disk.Preset("st19101")
	if err := vld.Format(dev, vld.FormatOptions{Model: m, Kind: "vlfs"}); err != nil {
		t.Fatal(err)
	}
	dev.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"compact", img}, &out, &errb); code != exitFailure || !strings.Contains(errb.String(), "neither a logical disk nor a mountable vlfs image") {
		t.Fatalf("vlfs image: exit %d, %q", code, errb.String())
	}
}
