package fstest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// Defaults of Options.
const (
	DefaultSize = 256 << 20
	DefaultDisk = "st19101"
)

// Options describe a test mount. The zero value formats a 256 MiB image of
// the st19101 disk and mounts it with default options.
type Options struct {
	Size  int64          // image size in bytes (default 256 MiB)
	Disk  string         // disk preset or model file (default st19101)
	Image string         // mount this existing image instead of formatting one
	FS    vlfs.Options   // file-system options (Logf defaults to t.Logf)
	Fuse  fusefs.Options // FUSE options (Debug is set under go test -v)
	// NoCheck skips the Check after unmount, for tests that damage the
	// image on purpose.
	NoCheck bool
	// WrapDevice, if set, wraps the image's device before the file system
	// is mounted on it (a test double that delays or counts requests).
	WrapDevice func(*device.File) device.Device
}

// Mounted is a live test mount.
type Mounted struct {
	Dir    string // the mount point
	Image  string // the image file
	FS     *vlfs.FS
	Server *fusefs.Server

	t       testing.TB
	noCheck bool
	once    sync.Once
}

// Available says whether FUSE mounts can be made here, and if not, why.
func Available() (ok bool, why string) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return false, fmt.Sprintf("FUSE tests need /dev/fuse: %v", err)
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		return false, fmt.Sprintf("FUSE tests need fusermount3 (package fuse3): %v", err)
	}
	return true, ""
}

// Mount mounts a fresh (or the given) image and returns the mount point.
func Mount(t testing.TB, o Options) string { return MountFS(t, o).Dir }

// MountFS is Mount returning the whole mount.
func MountFS(t testing.TB, o Options) *Mounted {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
	tmp := t.TempDir()
	img := o.Image
	if img == "" {
		img = filepath.Join(tmp, "vlfs.img")
		Mkfs(t, img, o.Size, o.Disk)
	}
	dir := filepath.Join(tmp, "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Mounted{Dir: dir, Image: img, t: t, noCheck: o.NoCheck}
	fsOpt := o.FS
	if fsOpt.WriteThroughBytes == 0 {
		fsOpt.WriteThroughBytes = vlfs.DefaultWriteThrough // as vlfs mount does
	}
	m.FS = openFS(t, img, fsOpt, o.WrapDevice)
	fo := o.Fuse
	fo.Image = img
	if fo.FSName == "" {
		fo.FSName = img // names the image in /proc/mounts, for stale mounts
	}
	if fo.Logf == nil {
		fo.Logf = t.Logf
	}
	if testing.Verbose() && fo.Debug == nil {
		fo.Debug = func(msg string) { t.Log(msg) }
	}
	srv, err := fusefs.Mount(dir, m.FS, fo)
	if err != nil {
		m.FS.Close()
		t.Fatalf("fusefs.Mount: %v", err)
	}
	m.Server = srv
	t.Cleanup(m.Unmount)
	return m
}

// Mkfs formats a new image file of size bytes (0: DefaultSize) for the disk
// preset or model file (""; DefaultDisk).
func Mkfs(t testing.TB, path string, size int64, diskName string) {
	t.Helper()
	if size == 0 {
		size = DefaultSize
	}
	if diskName == "" {
		diskName = DefaultDisk
	}
	model, err := disk.Resolve(diskName)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.OpenFile(path, device.FileOptions{Create: true, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: model}); err != nil {
		t.Fatalf("vlfs.Mkfs: %v", err)
	}
}

// openFS opens and mounts the file system in an image.
func openFS(t testing.TB, img string, o vlfs.Options, wrap func(*device.File) device.Device) *vlfs.FS {
	t.Helper()
	f, err := device.OpenFile(img, device.FileOptions{ReadOnly: o.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	var dev device.Device = f
	if wrap != nil {
		dev = wrap(f)
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	fsys, err := vlfs.Mount(dev, o)
	if err != nil {
		dev.Close()
		t.Fatalf("vlfs.Mount %s: %v", img, err)
	}
	return fsys
}

// Unmount unmounts (retrying while busy), waits for the server, closes the
// file system and checks the image. It runs in t.Cleanup and may be called
// earlier, for example to remount the image; later calls do nothing.
func (m *Mounted) Unmount() {
	m.once.Do(func() {
		m.t.Helper()
		m.unmountRetrying()
		m.waitServer()
		if err := m.FS.Close(); err != nil {
			m.t.Errorf("closing the file system after unmount: %v", err)
		}
		if !m.noCheck {
			Check(m.t, m.Image)
		}
	})
}

// unmountRetrying tries fusermount3 -u for a few seconds (something may
// still hold a file open) and then detaches lazily.
func (m *Mounted) unmountRetrying() {
	var err error
	for i := 0; i < 50; i++ {
		err = fusefs.Unmount(m.Dir, false)
		if err == nil || errors.Is(err, fusefs.ErrNotMounted) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Errorf("unmount %s still failing after 5 s, detaching lazily: %v", m.Dir, err)
	if err := fusefs.Unmount(m.Dir, true); err != nil {
		m.t.Errorf("lazy unmount: %v", err)
	}
}

// waitServer waits for the serving goroutines to end.
func (m *Mounted) waitServer() {
	done := make(chan error, 1)
	go func() { done <- m.Server.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			m.t.Logf("closing the FUSE connection: %v", err)
		}
	case <-time.After(30 * time.Second):
		m.t.Errorf("FUSE server still running 30 s after unmount; aborting it")
		if err := m.Server.Abort(); err != nil {
			m.t.Errorf("%v", err)
		}
		<-done
	}
}

// Check mounts the image read-only in-process and runs the invariant walk,
// failing the test if the file system is not clean.
func Check(t testing.TB, img string) {
	t.Helper()
	fsys := openFS(t, img, vlfs.Options{ReadOnly: true}, nil)
	defer fsys.Close()
	if err := fsys.Check(); err != nil {
		t.Errorf("vlfs Check after unmount: %v", err)
	}
}

// CheckRecovered is Check for an image whose daemon was killed: it mounts
// the image writable first, as the next real mount would, so that recovery
// reclaims what the crash left orphaned (files unlinked while open), and
// then runs the invariant walk. A read-only Check of such an image rightly
// reports those orphans as unlinked inodes still allocated.
func CheckRecovered(t testing.TB, img string) {
	t.Helper()
	fsys := openFS(t, img, vlfs.Options{}, nil)
	if err := fsys.Close(); err != nil {
		t.Errorf("closing after recovery: %v", err)
	}
	Check(t, img)
}
