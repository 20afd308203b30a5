package fusefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestPunchHoleOverFUSE: through the kernel, with and without the writeback
// cache, PUNCH_HOLE frees the file's blocks (st_blocks and statfs show
// it), the range reads as zeros, and ZERO_RANGE zeroes without
// EOPNOTSUPP. The conformance case FallocatePunchHole accepts EOPNOTSUPP,
// as a host file system may answer; vlfs must not.
func TestPunchHoleOverFUSE(t *testing.T) {
	for _, wt := range []bool{false, true} {
		t.Run(map[bool]string{false: "writeback", true: "writethrough"}[wt], func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			p := filepath.Join(m.Dir, "f")
			data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			blocks := func() int64 {
				var st syscall.Stat_t
				if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
					t.Fatal(err)
				}
				return st.Blocks
			}
			free := func() uint64 {
				var s unix.Statfs_t
				if err := unix.Statfs(m.Dir, &s); err != nil {
					t.Fatal(err)
				}
				return s.Bfree
			}
			b0, f0 := blocks(), free()
			const off, n = 64 << 10, 512 << 10
			if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n); err != nil {
				t.Fatalf("PUNCH_HOLE: %v", err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			if got := b0 - blocks(); got != n/512 {
				t.Errorf("st_blocks fell by %d, want %d", got, n/512)
			}
			if got := free() - f0; got < n/4096 {
				t.Errorf("statfs free blocks grew by %d, want at least %d", got, n/4096)
			}
			clear(data[off : off+n])
			if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_ZERO_RANGE, 10, 100); err != nil {
				t.Fatalf("ZERO_RANGE: %v", err)
			}
			clear(data[10:110])
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("content after punch and zero range differs (err %v, %d bytes)", err, len(got))
			}
		})
	}
}
