package fusefs_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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
// the holes of a sparse file nobody has open for writing, block by block
// (without FUSE_LSEEK the kernel calls the whole file data: one extent).
// Asked about a file open for writing, which may have dirty pages vlfs has
// not seen (a block written into a hole, an append past the size vlfs
// knows), the server leaves lseek to the kernel for the rest of the mount,
// whose answer covers them.
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
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			lseeks := func() int64 { return m.Server.Report().FUSE["lseek"].Count }
			// close(2) returns before the server has the RELEASE: until
			// then it rightly takes the file for one being written.
			for deadline := time.Now().Add(10 * time.Second); m.Server.Report().OpenForWriting != 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the server still sees the file open for writing 10 s after its close")
				}
			}
			r, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			wantExtents(t, "nobody writing", r, [][2]int64{{bs, 2 * bs}, {40 * bs, 41 * bs}, {600 * bs, 601 * bs}})
			if lseeks() == 0 {
				t.Fatal("no LSEEK reached the server")
			}

			// A block written into a hole and an append past 3 MiB, maybe
			// only in the kernel's page cache: the kernel's own answer.
			w, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.WriteAt(block, 100*bs); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteAt(block[:100], 5<<20); err != nil {
				t.Fatal(err)
			}
			all := [][2]int64{{0, 5<<20 + 100}}
			wantExtents(t, "open for writing", w, all)
			n := lseeks()
			wantExtents(t, "read-only, after the kernel took over", r, all)
			if lseeks() != n {
				t.Fatalf("LSEEK requests went on after ENOSYS: %d, then %d", n, lseeks())
			}
		})
	}
}
