package fusefs_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// dataExtents walks a file with SEEK_DATA and SEEK_HOLE, as cp and tar do,
// and returns its data extents.
func dataExtents(t *testing.T, f *os.File) [][2]int64 {
	t.Helper()
	fd := int(f.Fd())
	var out [][2]int64
	for off := int64(0); ; {
		d, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			return out
		}
		if err != nil {
			t.Fatalf("SEEK_DATA from %d: %v", off, err)
		}
		h, err := unix.Seek(fd, d, unix.SEEK_HOLE)
		if err != nil {
			t.Fatalf("SEEK_HOLE from %d: %v", d, err)
		}
		if h <= d {
			t.Fatalf("SEEK_HOLE from data at %d = %d", d, h)
		}
		out = append(out, [2]int64{d, h})
		off = h
	}
}

func wantExtents(t *testing.T, what string, f *os.File, want [][2]int64) {
	t.Helper()
	if got := dataExtents(t, f); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: data extents %v, want %v", what, got, want)
	}
}

// TestSeekHolesOverFUSE: through the kernel, SEEK_DATA and SEEK_HOLE find
// a sparse file's holes block by block, and under the writeback cache
// they also see what the kernel has not written back yet: a block written
// into a hole and an append past the size vlfs knows, while the writer's
// descriptor is still open. (Without FUSE_LSEEK the kernel calls the
// whole file data: one extent.)
func TestSeekHolesOverFUSE(t *testing.T) {
	const bs = 4096
	for _, wt := range []bool{false, true} {
		t.Run(map[bool]string{false: "writeback", true: "writethrough"}[wt], func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			p := filepath.Join(m.Dir, "sparse")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			block := make([]byte, bs)
			for i := range block {
				block[i] = 'x'
			}
			for _, lbn := range []int64{1, 40, 600} {
				if _, err := f.WriteAt(block, lbn*bs); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Truncate(3 << 20); err != nil {
				t.Fatal(err)
			}
			want := [][2]int64{{bs, 2 * bs}, {40 * bs, 41 * bs}, {600 * bs, 601 * bs}}
			wantExtents(t, "written, not synced", f, want)
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			wantExtents(t, "synced", f, want)

			// A block written into a hole, and an append past 3 MiB, left
			// in the kernel's page cache.
			writes := func() int64 { return m.Server.Report().FUSE["write"].Count }
			w0 := writes()
			if _, err := f.WriteAt(block, 100*bs); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(block[:100], 5<<20); err != nil {
				t.Fatal(err)
			}
			if !wt && writes() != w0 {
				t.Logf("the kernel wrote back before lseek (%d WRITEs); the test proves less", writes()-w0)
			}
			want = [][2]int64{{bs, 2 * bs}, {40 * bs, 41 * bs}, {100 * bs, 101 * bs}, {600 * bs, 601 * bs}, {5 << 20, 5<<20 + 100}}
			wantExtents(t, "pending writes", f, want)
			if got, err := unix.Seek(int(f.Fd()), 5<<20, unix.SEEK_DATA); err != nil || got != 5<<20 {
				t.Fatalf("SEEK_DATA at the pending append = %d, %v", got, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}

			// Nobody writing: answered without a writeback, and the same.
			r, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			wantExtents(t, "read-only, after close", r, want)
			if n := m.Server.Report().FUSE["lseek"]; n.Count == 0 {
				t.Fatalf("lseek requests: %+v; want some", n)
			}
		})
	}
}
