package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vlfs/vlfs/diskfs"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// diskHelperEnv makes the test binary run one vlfs command line (JSON
// array) and exit: the `disk serve` tests need a real process to signal
// and to kill -9.
const diskHelperEnv = "VLFS_DISK_HELPER_ARGS"

// TestDiskHelperProcess is not a test: it is the process body started by
// startDiskServe.
func TestDiskHelperProcess(t *testing.T) {
	raw := os.Getenv(diskHelperEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(exitUsage)
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// lockedBuffer collects a child's output while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// diskServer is a `vlfs disk serve` process.
type diskServer struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan error
	dir  string
}

// startDiskServe creates an image and serves it from a child process,
// returning once the mount answers.
func startDiskServe(t *testing.T) (*diskServer, string) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("needs /dev/fuse: %v", err)
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		t.Skipf("needs fusermount3 (package fuse3): %v", err)
	}
	tmp := t.TempDir()
	img, dir := filepath.Join(tmp, "d.img"), filepath.Join(tmp, "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runDiskCLI("disk", "create", "--size", "32MiB", img); code != exitOK {
		t.Fatal(errs)
	}
	return serveInChild(t, img, dir), img
}

func serveInChild(t *testing.T, img, dir string) *diskServer {
	t.Helper()
	args, _ := json.Marshal([]string{"disk", "serve", img, dir})
	s := &diskServer{out: &lockedBuffer{}, done: make(chan error, 1), dir: dir}
	s.cmd = exec.Command(os.Args[0], "-test.run=^TestDiskHelperProcess$")
	s.cmd.Env = append(os.Environ(), diskHelperEnv+"="+string(args))
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			<-s.done
		}
		exec.Command("fusermount3", "-u", "-z", dir).Run()
	})
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(dir, diskfs.StatsFile)); err == nil {
			return s
		}
		select {
		case err := <-s.done:
			t.Fatalf("disk serve exited (%v):\n%s", err, s.out)
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Fatalf("disk serve not ready after 5 s:\n%s", s.out)
	return nil
}

// wait waits for the server to exit and returns its exit code.
func (s *diskServer) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatalf("disk serve still running:\n%s", s.out)
	}
	return -1
}

// writeSynced writes data into the served disk at off and fsyncs it.
func writeSynced(t *testing.T, dir string, data []byte, off int64) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, diskfs.DiskFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// readImage opens a closed image and reads n bytes at off through its map.
func readImage(t *testing.T, img string, off int64, n int) ([]byte, vld.RecoveryInfo) {
	t.Helper()
	dev, err := device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	buf := make([]byte, n)
	if _, err := diskfs.NewLogical(d).ReadAt(buf, off); err != nil {
		t.Fatal(err)
	}
	return buf, d.Volume().Recovery()
}

// TestDiskServeSignal: a second serve of the image is refused; umount is
// refused while the disk file is open;
// SIGTERM then unmounts and closes the image cleanly, and the data is there.
func TestDiskServeSignal(t *testing.T) {
	s, img := startDiskServe(t)
	dir2 := filepath.Join(t.TempDir(), "mnt2")
	if err := os.Mkdir(dir2, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runDiskCLI("disk", "serve", img, dir2); code != exitFailure || !strings.Contains(errs, "served only once") {
		t.Fatalf("second serve of a served image: exit %d: %s", code, errs)
	}
	data := bytes.Repeat([]byte("signal "), 150_000)
	writeSynced(t, s.dir, data, 12345)
	f, err := os.Open(filepath.Join(s.dir, diskfs.DiskFile))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runDiskCLI("disk", "umount", s.dir)
	f.Close()
	if code != exitFailure || !strings.Contains(errs, "still in use") {
		t.Fatalf("disk umount with the file open: exit %d: %s", code, errs)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(t); code != exitOK || !strings.Contains(s.out.String(), "closed cleanly") {
		t.Fatalf("after SIGTERM: exit %d:\n%s", code, s.out)
	}
	got, rec := readImage(t, img, 12345, len(data))
	if !rec.Clean || !bytes.Equal(got, data) {
		t.Fatalf("after a clean stop: clean %v, data equal %v", rec.Clean, bytes.Equal(got, data))
	}
}

// TestDiskServeKill9: what was fsync'd survives kill -9 of the server; the
// next open recovers without a tail record.
func TestDiskServeKill9(t *testing.T) {
	s, img := startDiskServe(t)
	data := bytes.Repeat([]byte("durable "), 100_000)
	writeSynced(t, s.dir, data, 4096*7+3)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.wait(t)
	if out, err := exec.Command("fusermount3", "-u", s.dir).CombinedOutput(); err != nil {
		t.Fatalf("clearing the dead mount: %v %s", err, out)
	}
	got, rec := readImage(t, img, 4096*7+3, len(data))
	if rec.Clean || !bytes.Equal(got, data) {
		t.Fatalf("after kill -9: clean %v (want false), data equal %v", rec.Clean, bytes.Equal(got, data))
	}
}

// TestDiskUmount: vlfs disk umount unmounts, waits for the server, and the
// image can be served again.
func TestDiskUmount(t *testing.T) {
	s, img := startDiskServe(t)
	code, out, errs := runDiskCLI("disk", "umount", s.dir)
	if code != exitOK || !strings.Contains(out, "unmounted") {
		t.Fatalf("disk umount: exit %d: %s%s", code, out, errs)
	}
	if s.cmd.ProcessState == nil {
		if c := s.wait(t); c != exitOK {
			t.Fatalf("server exit %d:\n%s", c, s.out)
		}
	}
	if code, _, errs := runDiskCLI("disk", "umount", s.dir); code != exitFailure || !strings.Contains(errs, "not mounted") {
		t.Fatalf("second umount: exit %d: %s", code, errs)
	}
	_, rec := readImage(t, img, 0, 1)
	if !rec.Clean {
		t.Fatal("image not closed cleanly after disk umount")
	}
}
