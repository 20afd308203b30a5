package fusefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// TestKernelTimesDurableAtFsync: with the writeback cache the file system
// does not stamp times on WRITE (vlfs.FS.SetKernelTimes); the kernel's
// own mtime must still be durable when fsync returns. The image is copied
// right after the fsync (what a crash then would leave, plus nothing a
// commit references) and mounted in this process: the file's mtime there
// must be the one stat showed through the mount, not the old one set
// before the write, and so must its ctime.
func TestKernelTimesDurableAtFsync(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	p := filepath.Join(m.Dir, "f")
	must(t, os.WriteFile(p, bytes.Repeat([]byte("x"), 64<<10), 0o644))
	old := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	must(t, os.Chtimes(p, old, old))
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	must(t, f.Sync())
	if _, err := f.WriteAt([]byte("overwrite"), 4096); err != nil {
		t.Fatal(err)
	}
	must(t, f.Sync())
	var st syscall.Stat_t
	must(t, syscall.Fstat(int(f.Fd()), &st))
	want := time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
	if !want.After(old) {
		t.Fatalf("mtime through the mount %v, not after the old %v: the kernel did not stamp the write", want, old)
	}
	img, err := os.ReadFile(m.Image)
	must(t, err)
	fs, err := vlfs.Mount(device.MemFrom(img), vlfs.Options{ReadOnly: true})
	must(t, err)
	defer fs.Close()
	a, err := fs.Lookup(vlfs.RootIno, "f")
	must(t, err)
	if !a.Mtime.Equal(want) {
		t.Fatalf("mtime on disk after fsync %v, want the kernel's %v (old %v)", a.Mtime, want, old)
	}
	if wantC := time.Unix(st.Ctim.Sec, st.Ctim.Nsec); !a.Ctime.Equal(wantC) {
		t.Fatalf("ctime on disk after fsync %v, want the kernel's %v", a.Ctime, wantC)
	}
}
