package fusefs_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
	"golang.org/x/sys/unix"
)

// TestLargeWriteRequests checks the FUSE_MAX_PAGES patch of bazil.org/fuse
// (third_party/bazil.org/fuse/VLFS-PATCHES.md): 1 MiB write(2)s reach the
// server as WRITEs of up to 1 MiB, not as the 128 KiB requests a kernel
// sends without FUSE_MAX_PAGES (8 MiB would then take at least 64 WRITEs).
// Both with the writeback cache (the kernel's write-back gathers pages) and
// without (each write(2) is sent as it comes).
func TestLargeWriteRequests(t *testing.T) {
	const total, chunk = 8 << 20, 1 << 20
	for _, wt := range []bool{false, true} {
		t.Run(fmt.Sprintf("writethrough=%v", wt), func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			f, err := os.Create(filepath.Join(m.Dir, "big"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			before := m.Server.Counters()["write"].Count
			buf := make([]byte, chunk)
			for off := 0; off < total; off += chunk {
				buf[0] = byte(off >> 20)
				if _, err := f.Write(buf); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			n := m.Server.Counters()["write"].Count - before
			t.Logf("%d MiB in %d WRITE requests", total>>20, n)
			if n < 1 || n > 2*total/chunk {
				t.Errorf("%d WRITE requests for %d MiB written in 1 MiB write(2)s; want at most %d (1 MiB requests)", n, total>>20, 2*total/chunk)
			}
		})
	}
}

// TestLargeReadRequests: Mount widens the kernel's read-ahead window of the
// mount to max_readahead (bdi.go), so a cold sequential read reaches the
// server as READs of up to 1 MiB, not 128 KiB. Writing the window needs
// root and a writable /sys; otherwise the test skips, saying why.
func TestLargeReadRequests(t *testing.T) {
	const total = 16 << 20
	m := fstest.MountFS(t, fstest.Options{})
	if kb, err := m.Server.Readahead(); kb < 1024 {
		if err == nil {
			t.Fatalf("read-ahead window %d KiB and no error; want 1024", kb)
		}
		t.Skipf("read-ahead window %d KiB: Mount could not widen it (only root can write %s): %v", kb, fusefs.BDIDir, err)
	}
	p := filepath.Join(m.Dir, "big")
	buf := make([]byte, total)
	for i := range buf {
		buf[i] = byte(i >> 12)
	}
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Drop the kernel's cached pages of the file, so that the read below
	// reaches the server.
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	before := m.Server.Counters()["read"]
	got := make([]byte, 1<<20)
	for off := 0; off < total; off += len(got) {
		if _, err := io.ReadFull(f, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, buf[off:off+len(got)]) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
	n := m.Server.Counters()["read"].Count - before.Count
	t.Logf("%d MiB read in %d READ requests", total>>20, n)
	// 128 KiB READs would take 128; 1 MiB ones 16 (and a few short ones
	// where read-ahead and the reader meet).
	if n < total/(1<<20) || n > total/(384<<10) {
		t.Errorf("%d READs for %d MiB; want %d to %d (READs of about 1 MiB; 0 means the cache was not dropped)", n, total>>20, total/(1<<20), total/(384<<10))
	}
}
