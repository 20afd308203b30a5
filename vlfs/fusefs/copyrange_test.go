package fusefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestCopyFileRangeOverFUSE: copy_file_range(2) within a mount reaches the
// server as COPY_FILE_RANGE requests (no READ of the source), with and
// without the writeback cache, including source bytes still dirty in the
// kernel's page cache, and copies exactly; from the stats file it falls
// back to the kernel's copy.
func TestCopyFileRangeOverFUSE(t *testing.T) {
	for _, wt := range []bool{false, true} {
		t.Run(map[bool]string{false: "writeback", true: "writethrough"}[wt], func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			src := make([]byte, 3<<20+777)
			for i := range src {
				src[i] = byte(i*7 + i>>12)
			}
			in, err := os.Create(filepath.Join(m.Dir, "src"))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Write(src); err != nil { // not synced: dirty pages in the kernel
				t.Fatal(err)
			}
			out, err := os.Create(filepath.Join(m.Dir, "dst"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			before := m.Server.Report().FUSE
			offIn, offOut := int64(0), int64(0)
			for offIn < int64(len(src)) {
				n, err := unix.CopyFileRange(int(in.Fd()), &offIn, int(out.Fd()), &offOut, len(src), 0)
				if err != nil {
					t.Fatalf("copy_file_range at %d: %v", offIn, err)
				}
				if n == 0 {
					t.Fatalf("copy_file_range copied nothing at %d of %d", offIn, len(src))
				}
			}
			after := m.Server.Report().FUSE
			if c := after["copy_file_range"].Count - before["copy_file_range"].Count; c == 0 {
				t.Errorf("no COPY_FILE_RANGE request reached the server")
			}
			if r := after["read"].Count - before["read"].Count; r != 0 {
				t.Errorf("%d READ requests during the copy, want none", r)
			}
			got, err := os.ReadFile(filepath.Join(m.Dir, "dst"))
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("copy differs (err %v, %d of %d bytes)", err, len(got), len(src))
			}
			// The stats file: the server declines, the kernel copies.
			st, err := os.Open(filepath.Join(m.Dir, ".vlfs-stats"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cp, err := os.Create(filepath.Join(m.Dir, "stats-copy"))
			if err != nil {
				t.Fatal(err)
			}
			defer cp.Close()
			var o1, o2 int64
			if n, err := unix.CopyFileRange(int(st.Fd()), &o1, int(cp.Fd()), &o2, 1<<20, 0); err != nil || n == 0 {
				t.Fatalf("copy of the stats file: %d, %v", n, err)
			}
		})
	}
}
