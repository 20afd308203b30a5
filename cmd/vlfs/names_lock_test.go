package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/loopdev"
	"github.com/vlfs/vlfs/internal/mountinfo"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// Issue 29: an image in use (mounted, or served by vlfs disk serve) must be
// refused by every command that opens it, under every name it has: before
// the fix, the loop device of a fuseblk mount and a loop device attached by
// hand reached the live image past the flock on its path, and mkfs --force
// through them wiped fsync'd files.

// openerCmd is a command that opens an image, and what its refusal says.
type openerCmd struct {
	args func(name, spare string) []string
	says string // a phrase of the refusal message, the same for every name
}

// imageOpeners lists every command that opens an image for writing or
// reading, with the phrase its refusal of a live image prints.
var imageOpeners = []openerCmd{
	{func(n, _ string) []string { return []string{"mkfs", "--force", "--quiet", n} }, "is in use by another process"},
	{func(n, d string) []string { return []string{"mount", "--background", "--compactor", "off", n, d} }, "is already in use"},
	{func(n, _ string) []string { return []string{"fsck", n} }, "the image is mounted"},
	{func(n, _ string) []string { return []string{"fsck", "--repair", n} }, "the image is mounted"},
	{func(n, _ string) []string { return []string{"compact", "--quiet", n} }, "the image is in use"},
	{func(n, _ string) []string { return []string{"inspect", n} }, "is live"},
	{func(n, _ string) []string { return []string{"inspect", "--damage", "--leak-block", n} }, "is live"},
	{func(n, d string) []string { return []string{"disk", "serve", n, d} }, "is already in use"},
}

// needLoop skips a test that attaches loop devices and mounts, saying why.
func needLoop(t *testing.T) {
	t.Helper()
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if err := loopdev.Available(); err != nil {
		t.Skipf("needs loop devices: %v", err)
	}
}

// attachByHand attaches img to a free loop device as `losetup -f` does,
// detached at cleanup.
func attachByHand(t *testing.T, img string) string {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "--detach", dev).Run() })
	return dev
}

// otherNames makes a hard link and a symlink to img beside it, and one
// symlink to each loop device, and returns every name with a label.
func otherNames(t *testing.T, img string, loops map[string]string) map[string]string {
	t.Helper()
	dir := filepath.Dir(img)
	names := map[string]string{"image path": img}
	hard, sym := filepath.Join(dir, "hard.img"), filepath.Join(dir, "sym.img")
	if err := os.Link(img, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(img, sym); err != nil {
		t.Fatal(err)
	}
	names["hard link"], names["symlink"] = hard, sym
	for label, dev := range loops {
		names[label] = dev
		link := filepath.Join(dir, strings.ReplaceAll(label, " ", "-")+".dev")
		if err := os.Symlink(dev, link); err != nil {
			t.Fatal(err)
		}
		names["symlink to "+label] = link
	}
	return names
}

// wantRefused runs every opener on every name and wants exit 8 with the
// opener's message (or, if anyOf is given, one of those phrases); spare is
// an empty directory a mount would use.
func wantRefused(t *testing.T, names map[string]string, spare string, anyOf ...string) {
	t.Helper()
	for label, name := range names {
		for _, c := range imageOpeners {
			args := c.args(name, spare)
			code, out, errs := runCLI(t, args...)
			says := anyOf
			if says == nil {
				says = []string{c.says}
			}
			if code != exitFailure || !slices.ContainsFunc(says, func(p string) bool { return strings.Contains(out+errs, p) }) {
				t.Errorf("%s (%s): vlfs %s: exit %d, want %d saying one of %q:\n%s%s",
					label, name, strings.Join(args, " "), code, exitFailure, says, out, errs)
			}
			if _, mounted, _ := fusefs.MountType(spare); mounted {
				fusefs.Unmount(spare, true)
				t.Errorf("%s: vlfs %s mounted a live image a second time", label, strings.Join(args, " "))
			}
		}
	}
}

// TestMountedImageEveryName mounts an image (over a loop device, as root
// does by default) and tries every command under every name of the image:
// its path, a hard link, a symlink, the mount's loop device, a loop device
// attached by hand, and symlinks to those. Every one is refused, the
// mount's fsync'd file survives, and stats finds the mount under each name.
func TestMountedImageEveryName(t *testing.T) {
	needLoop(t)
	buildVLFS(t)
	dir := t.TempDir()
	img, mnt, spare := filepath.Join(dir, "x.img"), filepath.Join(dir, "m"), filepath.Join(dir, "m2")
	for _, d := range []string{mnt, spare} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "mkfs", "--quiet", "--size", "64MiB", img)
	mustRun(t, "mount", "--background", "--compactor", "off", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	writeFsynced(t, filepath.Join(mnt, "keep"), "important")
	e, ok, err := mountinfo.Find(mnt)
	if err != nil || !ok || !strings.HasPrefix(e.Source, "/dev/loop") {
		t.Fatalf("the mount is not over a loop device: %+v %v %v", e, ok, err)
	}
	loops := map[string]string{"mount's loop device": e.Source, "second loop device": attachByHand(t, img)}
	names := otherNames(t, img, loops)
	wantRefused(t, names, spare)
	for label, name := range names {
		if r := statsJSON(t, name); r.Source != "mount" {
			t.Errorf("stats %s (%s): source %q, want the mount", label, name, r.Source)
		}
	}
	writeFsynced(t, filepath.Join(mnt, "after"), "still writable")
	mustRun(t, "umount", mnt)
	mustRun(t, "fsck", img)
	mustRun(t, "mount", "--background", "--compactor", "off", img, mnt)
	for f, want := range map[string]string{"keep": "important", "after": "still writable"} {
		if got, err := os.ReadFile(filepath.Join(mnt, f)); err != nil || string(got) != want {
			t.Errorf("%s after remount: %q, %v; want %q", f, got, err, want)
		}
	}
	mustRun(t, "umount", mnt)
}

// TestImageMountedThroughLoopEveryName is the reverse: the image is
// attached by hand and mounted through that loop device; its path and
// every other name are refused as well.
func TestImageMountedThroughLoopEveryName(t *testing.T) {
	needLoop(t)
	buildVLFS(t)
	dir := t.TempDir()
	img, mnt, spare := filepath.Join(dir, "x.img"), filepath.Join(dir, "m"), filepath.Join(dir, "m2")
	for _, d := range []string{mnt, spare} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "mkfs", "--quiet", "--size", "64MiB", img)
	loop := attachByHand(t, img)
	mustRun(t, "mount", "--background", "--compactor", "off", loop, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	writeFsynced(t, filepath.Join(mnt, "keep"), "important")
	names := otherNames(t, img, map[string]string{"mounted loop device": loop, "second loop device": attachByHand(t, img)})
	wantRefused(t, names, spare)
	mustRun(t, "umount", mnt)
	mustRun(t, "fsck", img)
}

// TestServedDiskEveryName: a logical-disk image served by vlfs disk serve
// is refused under every name, as a mounted image is.
func TestServedDiskEveryName(t *testing.T) {
	needLoop(t)
	buildVLFS(t) // the mount opener starts a daemon
	_, img := startDiskServe(t)
	spare := filepath.Join(filepath.Dir(img), "m2")
	if err := os.Mkdir(spare, 0o755); err != nil {
		t.Fatal(err)
	}
	names := otherNames(t, img, map[string]string{"loop device": attachByHand(t, img)})
	wantRefused(t, names, spare, "in use", "is live", "mounted")
}

// writeFsynced writes a file and fsyncs it.
func writeFsynced(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
