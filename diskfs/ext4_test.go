package diskfs

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// upperFS is an unmodified file system mounted from the exported disk.
type upperFS struct {
	name    string
	needs   []string // programs it needs
	mount   func(disk, dir string, ro bool) ([]byte, error)
	unmount func(dir string) ([]byte, error)
	// holder is what the unmount refusal must name.
	holder string
}

func upperFileSystems() []upperFS {
	return []upperFS{
		{
			name: "kernel-ext4", needs: []string{"mount", "umount", "losetup"},
			mount: func(disk, dir string, ro bool) ([]byte, error) {
				o := "loop"
				if ro {
					o = "loop,ro"
				}
				return exec.Command("mount", "-t", "ext4", "-o", o, disk, dir).CombinedOutput()
			},
			unmount: func(dir string) ([]byte, error) { return exec.Command("umount", dir).CombinedOutput() },
			holder:  "ext4 mounted on",
		},
		{
			name: "fuse2fs", needs: []string{"fuse2fs"},
			mount: func(disk, dir string, ro bool) ([]byte, error) {
				args := []string{disk, dir}
				if ro {
					args = append(args, "-o", "ro")
				}
				return exec.Command("fuse2fs", args...).CombinedOutput()
			},
			unmount: func(dir string) ([]byte, error) { return exec.Command("fusermount3", "-u", dir).CombinedOutput() },
			holder:  "(fuse2fs)",
		},
	}
}

// canRun says why an upper file system cannot be used here, or "".
func (u upperFS) canRun() string {
	for _, p := range append([]string{"mkfs.ext4", "e2fsck"}, u.needs...) {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Sprintf("%s needs %s (e2fsprogs, fuse2fs: make deps): %v", u.name, p, err)
		}
	}
	if u.name == "kernel-ext4" && os.Geteuid() != 0 {
		return "kernel-ext4 needs root (mount -o loop)"
	}
	return ""
}

// TestExt4UncleanStop runs ext4 (the kernel's over a loop device, and
// fuse2fs) on a served logical disk, fsyncs files, stops the server as a
// crash would with the file system still mounted, serves the image again
// and checks the file system with e2fsck -fn and the files' contents.
func TestExt4UncleanStop(t *testing.T) {
	needFUSE(t)
	for _, u := range upperFileSystems() {
		t.Run(u.name, func(t *testing.T) {
			if why := u.canRun(); why != "" {
				t.Skip(why)
			}
			img := filepath.Join(t.TempDir(), "disk.img")
			createImage(t, img, 96<<20, vld.PlaceEager)
			s := serveImage(t, img)
			run(t, 0, "mkfs.ext4", "-q", "-F", "-b", "4096", s.disk())
			upper := filepath.Join(t.TempDir(), "fs")
			if err := os.Mkdir(upper, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := u.mount(s.disk(), upper, false); err != nil {
				t.Fatalf("%s mount: %v\n%s", u.name, err, out)
			}
			files := writeSyncedFiles(t, upper)
			if u.name == "kernel-ext4" {
				checkFstrim(t, s, upper, files)
			}
			err := s.srv.Unmount()
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), u.holder) {
				t.Errorf("Unmount under %s = %v; want ErrBusy naming %q", u.name, err, u.holder)
			}
			s.crash(t)
			if out, err := u.unmount(upper); err != nil { // its disk is gone: errors expected
				t.Logf("%s unmount after the crash: %v %s", u.name, err, out)
			}
			clearDeadMount(t, s.dir)

			s2 := serveImage(t, img)
			if s2.rec.Clean {
				t.Fatal("the image was recovered as cleanly closed")
			}
			t.Logf("recovered: %d log entries, %d blocks scanned", s2.rec.Entries, s2.rec.ScannedBlocks)
			t.Logf("e2fsck -fn right after the restart:\n%s", fsckClean(t, s2.disk()))
			// Mounting replays what ext4 committed to its journal; the
			// unmount then writes exact summary counts.
			if out, err := u.mount(s2.disk(), upper, false); err != nil {
				t.Fatalf("%s mount after the restart: %v\n%s", u.name, err, out)
			}
			if out, err := u.unmount(upper); err != nil {
				t.Fatalf("%s unmount: %v\n%s", u.name, err, out)
			}
			waitUnheld(t, s2.disk())
			t.Logf("e2fsck -fn after a mount and unmount:\n%s", fsckClean(t, s2.disk()))
			if out, err := u.mount(s2.disk(), upper, true); err != nil {
				t.Fatalf("%s remount: %v\n%s", u.name, err, out)
			}
			defer u.unmount(upper)
			for name, sum := range files {
				b, err := os.ReadFile(filepath.Join(upper, name))
				if err != nil || sha256.Sum256(b) != sum {
					t.Errorf("fsync'd file %s lost or changed after the unclean stop (%v)", name, err)
				}
			}
		})
	}
}

// checkFstrim deletes a file, runs fstrim in the upper file system and
// checks that the loop driver's discards reached the VLD as trims that
// freed at least the file's blocks.
func checkFstrim(t *testing.T, s *served, upper string, files map[string][32]byte) {
	t.Helper()
	if _, err := exec.LookPath("fstrim"); err != nil {
		t.Logf("fstrim not installed (util-linux); trim through the loop device not checked")
		return
	}
	st, err := os.Stat(filepath.Join(upper, "b"))
	if err != nil {
		t.Fatal(err)
	}
	before := s.ld.Stats().FreedByTrimBlocks
	if err := os.Remove(filepath.Join(upper, "b")); err != nil {
		t.Fatal(err)
	}
	delete(files, "b")
	syncDir(t, upper)
	t.Logf("%s", run(t, 0, "fstrim", "-v", upper))
	freed := s.ld.Stats().FreedByTrimBlocks - before
	if want := st.Size() / 4096; freed < want {
		t.Errorf("fstrim freed %d blocks by trim, want at least the deleted file's %d", freed, want)
	}
}

// writeSyncedFiles writes a few files (one in a subdirectory), each
// fsync'd on the descriptor that wrote it, with its directory fsync'd too,
// and returns their checksums.
func writeSyncedFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sums := map[string][32]byte{}
	for i, name := range []string{"a", "b", "sub/c"} {
		data := make([]byte, 1000+rng.Intn(300_000)*(i+1))
		rng.Read(data)
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatalf("fsync %s: %v", name, err)
		}
		f.Close()
		syncDir(t, filepath.Dir(filepath.Join(dir, name)))
		sums[name] = sha256.Sum256(data)
	}
	return sums
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatalf("fsync %s: %v", dir, err)
	}
}

// fsckClean runs e2fsck -fn and fails the test unless it exits 0 with no
// problem reported (e2fsck -n answers "no" to every "Fix?").
func fsckClean(t *testing.T, disk string) string {
	t.Helper()
	out := run(t, 0, "e2fsck", "-fn", disk)
	if strings.Contains(out, "?") {
		t.Errorf("e2fsck -fn found problems:\n%s", out)
	}
	return out
}

// waitUnheld waits until nothing holds the disk file (a loop device is
// released, or fuse2fs exits, shortly after the unmount returns).
func waitUnheld(t *testing.T, disk string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		hs, err := Holders(disk)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s is still held after the unmount", disk)
}

// run runs a command and fails the test unless it exits with want (-1:
// any status).
func run(t *testing.T, want int, name string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if want >= 0 && code != want {
		t.Fatalf("%s %s: exit %d, want %d\n%s", name, strings.Join(args, " "), code, want, out.String())
	}
	return out.String()
}
