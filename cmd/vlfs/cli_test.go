package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/loopdev"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// buildVLFS builds the vlfs binary for the commands that start a daemon
// (the test binary cannot be re-executed as vlfs) and points $VLFS_BINARY
// at it.
func buildVLFS(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vlfs")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv(binaryEnv, bin)
	return bin
}

// TestMountCycle is the whole CLI path: mkfs, mount --background, write,
// stats --json, umount, stats of the image, remount, read back.
func TestMountCycle(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	dir := t.TempDir()
	img, mnt, mnt2 := filepath.Join(dir, "a.img"), filepath.Join(dir, "mnt"), filepath.Join(dir, "mnt2")
	for _, d := range []string{mnt, mnt2} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "mkfs", "--size", "64MiB", img)
	out := mustRun(t, "mount", "--background", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	if !strings.Contains(out, "vlfs umount "+mnt) {
		t.Errorf("mount does not say how to unmount:\n%s", out)
	}
	// Over a loop device (fuseblk) whenever one can be had, so that sync
	// and syncfs commit; plain otherwise.
	want := "fuse.vlfs"
	if loopdev.Available() == nil {
		want = "fuseblk.vlfs"
	}
	if typ, _, _ := fusefs.MountType(mnt); typ != want {
		t.Errorf("mounted as %q, want %q", typ, want)
	}
	if code, _, errs := runCLI(t, "mount", "--background", img, mnt2); code != exitFailure || !strings.Contains(errs, "already in use") {
		t.Errorf("second mount of one image: exit %d: %s", code, errs)
	}
	data := strings.Repeat("persistent ", 5000)
	if err := os.WriteFile(filepath.Join(mnt, "f"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := statsJSON(t, mnt)
	if r.Source != "mount" || r.Ops["write"].Bytes < int64(len(data)) && r.FUSE["write"].Count == 0 || r.FUSERequests == 0 {
		t.Errorf("live stats: %+v", r)
	}
	if r2 := statsJSON(t, img); r2.Source != "mount" || r2.PID != r.PID {
		t.Errorf("stats of a mounted image did not read the mount: %+v", r2)
	}
	busy, err := os.Open(filepath.Join(mnt, "f"))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "umount", mnt)
	busy.Close()
	if code != exitFailure || !strings.Contains(errs, "busy") {
		t.Errorf("umount with an open file: exit %d: %s", code, errs)
	}
	mustRun(t, "umount", mnt)
	if _, mounted, _ := fusefs.MountType(mnt); mounted {
		t.Fatal("still mounted after umount")
	}
	if r := statsJSON(t, img); r.Source != "image" || r.Inodes < 2 {
		t.Errorf("image stats: %+v", r)
	}
	mustRun(t, "stats", img) // the text form
	mustRun(t, "mount", "--background", "-o", "ro", img, mnt2)
	t.Cleanup(func() { fusefs.Unmount(mnt2, true) })
	got, err := os.ReadFile(filepath.Join(mnt2, "f"))
	if err != nil || string(got) != data {
		t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(data))
	}
	mustRun(t, "umount", mnt2)
	fstest.Check(t, img)
}

// TestFstabHelper mounts the way mount(8) does for an fstab entry of type
// fuse.vlfs: through the installed helper, operands first, -o last.
func TestFstabHelper(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "a.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mkfs", "--size", "32MiB", img)
	mustRun(t, "mount", "--install-helper", dir)
	out, err := exec.Command(filepath.Join(dir, "mount.fuse.vlfs"), img, mnt, "-o", "rw,noatime,_netdev,clock=virtual").CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	if fstype, ok, _ := fusefs.MountType(mnt); !ok || fstype != "fuse.vlfs" {
		t.Fatalf("after the helper: mounted %v type %q", ok, fstype)
	}
	mustRun(t, "umount", mnt)
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("vlfs %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

func statsJSON(t *testing.T, target string) fusefs.Report {
	t.Helper()
	out := mustRun(t, "stats", "--json", target)
	var r fusefs.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	return r
}
