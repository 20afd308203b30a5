package fusefs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
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
