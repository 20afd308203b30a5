package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

func TestParseMountArgs(t *testing.T) {
	tests := []struct {
		args  []string
		code  int
		clock vld.Clock
		ro    bool
		other bool
		blk   string
	}{
		{args: []string{"img", "dir"}},
		{args: []string{"-o", "ro,allow_other", "img", "dir"}, ro: true, other: true},
		// mount(8) and mount.fuse3 put the options last.
		{args: []string{"img", "dir", "-o", "rw,noatime,clock=real"}, clock: vld.ClockReal},
		{args: []string{"-n", "img", "dir", "-o", "defaults,_netdev", "-o", "ro"}, ro: true},
		{args: []string{"--clock", "real", "img", "dir"}, clock: vld.ClockReal},
		{args: []string{"-o", "blkdev", "img", "dir"}, blk: "on"},
		{args: []string{"img", "dir", "-o", "noblkdev"}, blk: "off"},
		{args: []string{"--clock", "sundial", "img", "dir"}, code: exitUsage},
		{args: []string{"img", "dir", "-o", "bogus"}, code: exitUsage},
		{args: []string{"img"}, code: exitUsage},
		{args: []string{"img", "dir", "more"}, code: exitUsage},
	}
	for _, tc := range tests {
		a, code := parseMountArgs(tc.args, &strings.Builder{})
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d", tc.args, code, tc.code)
			continue
		}
		if code != exitOK {
			continue
		}
		if a.image != "img" || a.dir != "dir" || a.vol.Clock != tc.clock || a.fsOpt.ReadOnly != tc.ro ||
			a.fuse.ReadOnly != tc.ro || a.fuse.AllowOther != tc.other || !filepath.IsAbs(a.fuse.FSName) || a.blkdev != tc.blk {
			t.Errorf("%q: parsed %+v", tc.args, a)
		}
	}
}

// TestMountBufferOptions: -o commit=SECONDS and -o dirty_limit=SIZE set
// the background commit interval and the bound on buffered data, which
// the mount command could not configure before, -o log_window=F the
// volume's log window and -o writeback=SIZE the image's early writeback;
// bad values are usage errors.
func TestMountBufferOptions(t *testing.T) {
	a, code := parseMountArgs([]string{"img", "dir", "-o", "commit=0.5,dirty_limit=8MiB,log_window=0.25,write_through=0,writeback=0"}, &strings.Builder{})
	if code != exitOK || a.writeback != 0 {
		t.Fatalf("exit %d, writeback %d", code, a.writeback)
	}
	if a.fsOpt.FlushInterval != 500*time.Millisecond || a.fsOpt.DirtyLimitBytes != 8<<20 || a.vol.LogWindow != 0.25 || a.fsOpt.WriteThroughBytes != 0 {
		t.Fatalf("FlushInterval %v, DirtyLimitBytes %d, LogWindow %v, WriteThroughBytes %d", a.fsOpt.FlushInterval, a.fsOpt.DirtyLimitBytes, a.vol.LogWindow, a.fsOpt.WriteThroughBytes)
	}
	a, code = parseMountArgs([]string{"img", "dir"}, &strings.Builder{})
	if code != exitOK || a.fsOpt.FlushInterval != 0 || a.fsOpt.DirtyLimitBytes != 0 || a.vol.LogWindow != 0 || a.fsOpt.WriteThroughBytes != vlfs.DefaultWriteThrough ||
		a.writeback != device.DefaultWritebackBytes {
		t.Fatalf("defaults: exit %d, %+v", code, a.fsOpt)
	}
	for _, bad := range []string{"commit=0", "commit=-1", "commit=x", "commit=NaN", "dirty_limit=0", "dirty_limit=lots", "log_window=0", "log_window=1.5", "log_window=NaN", "write_through=-1", "write_through=big", "writeback=-1", "writeback=x"} {
		if _, code := parseMountArgs([]string{"img", "dir", "-o", bad}, &strings.Builder{}); code != exitUsage {
			t.Errorf("-o %s: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

func TestDaemonArgsRoundTrip(t *testing.T) {
	a, code := parseMountArgs([]string{"-o", "ro", "--clock", "real", "--debug", "--cpuprofile", "cpu.pprof", "i.img", "m"}, &strings.Builder{})
	if code != exitOK {
		t.Fatal(code)
	}
	args, err := a.daemonArgs()
	if err != nil {
		t.Fatal(err)
	}
	b, code := parseMountArgs(args[1:], &strings.Builder{})
	if code != exitOK || b.background || !b.debug || b.clock != "real" || !b.fuse.ReadOnly ||
		!filepath.IsAbs(b.image) || !filepath.IsAbs(b.dir) || !reflect.DeepEqual(b.opts, a.opts) ||
		!filepath.IsAbs(b.cpuProfile) || filepath.Base(b.cpuProfile) != "cpu.pprof" {
		t.Fatalf("daemon args %q parse to %+v", args, b)
	}
}

// TestMountRefusals checks the errors that name their fix; none of them
// mounts anything.
func TestMountRefusals(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.img")
	if code, _, errs := runCLI(t, "mkfs", "--size", "32MiB", img); code != exitOK {
		t.Fatal(errs)
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, image, dir, want string
	}{
		{"missing mount point", img, filepath.Join(dir, "nope"), "mkdir -p"},
		{"mount point is a file", img, file, "not a directory"},
		{"already a mount point", img, "/", "already a mount point"},
		{"missing image", filepath.Join(dir, "none.img"), mnt, "vlfs mkfs"},
		{"not an image", file, mnt, "not a vlfs image"},
	}
	for _, tc := range tests {
		code, _, errs := runCLI(t, "mount", tc.image, tc.dir)
		if code != exitFailure || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errs, exitFailure, tc.want)
		}
	}
	// An image held by someone else (here: this test) is refused.
	dev, err := device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "mount", img, mnt)
	dev.Close()
	if code != exitFailure || !strings.Contains(errs, "already in use") {
		t.Errorf("locked image: exit %d, stderr %q", code, errs)
	}
}

func TestExplainMountError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("tail: %w", vlfs.ErrNeedsRepair), "vlfs fsck --repair /i"},
		{fmt.Errorf("open: %w", vld.ErrNotFormatted), "vlfs mkfs /i"},
		{fmt.Errorf("inode 3: %w", vlfs.ErrCorrupt), "vlfs fsck /i"},
	}
	for _, tc := range tests {
		if got := explainMountError("/i", tc.err).Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q lacks %q", tc.err, got, tc.want)
		}
	}
}

func TestInstallHelper(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "vlfs")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(binaryEnv, bin)
	code, out, errs := runCLI(t, "mount", "--install-helper", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mount.fuse.vlfs"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), fmt.Sprintf("%q mount --background -o noblkdev \"$@\"", bin)) || !strings.Contains(out, "fuse.vlfs") {
		t.Fatalf("helper:\n%s\noutput: %s", b, out)
	}
}
