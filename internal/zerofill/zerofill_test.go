package zerofill

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// holes lists the holes of f below size as [start, end) pairs.
func holes(t *testing.T, f *os.File, size int64) [][2]int64 {
	t.Helper()
	var out [][2]int64
	for off := int64(0); off < size; {
		h, err := unix.Seek(int(f.Fd()), off, unix.SEEK_HOLE)
		if err != nil {
			t.Fatal(err)
		}
		if h >= size {
			break
		}
		d, err := unix.Seek(int(f.Fd()), h, unix.SEEK_DATA)
		if err != nil || d > size {
			d = size
		}
		out = append(out, [2]int64{h, d})
		off = d
	}
	return out
}

func TestHoles(t *testing.T) {
	const size = 8 << 20
	mark := bytes.Repeat([]byte("vlfs"), 1024)
	for _, tc := range []struct {
		name  string
		setup func(f *os.File) error
		// wantWritten: at least this many bytes written (file systems
		// round holes to their own block size), at most size.
		wantMin, wantMax int64
	}{
		{"sparse", func(f *os.File) error { return f.Truncate(size) }, size, size},
		{"full", func(f *os.File) error {
			_, err := f.WriteAt(make([]byte, size), 0)
			return err
		}, 0, 0},
		{"data in the middle is kept", func(f *os.File) error {
			if err := f.Truncate(size); err != nil {
				return err
			}
			_, err := f.WriteAt(mark, 3<<20)
			return err
		}, size - 1<<20, size - int64(len(mark))},
		{"data at the end", func(f *os.File) error {
			if err := f.Truncate(size); err != nil {
				return err
			}
			_, err := f.WriteAt(mark, size-int64(len(mark)))
			return err
		}, size - 1<<20, size - int64(len(mark))},
		{"short file is extended", func(f *os.File) error {
			_, err := f.WriteAt(mark, 0)
			return err
		}, size - 1<<20, size - int64(len(mark))},
		{"fallocated", func(f *os.File) error {
			return unix.Fallocate(int(f.Fd()), 0, 0, size)
		}, 0, size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "img")
			f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := tc.setup(f); err != nil {
				t.Skipf("set-up not supported here: %v", err)
			}
			last := int64(-1)
			n, err := Holes(f, size, func(done, total int64) {
				if done < last || done > total || total != size {
					t.Errorf("progress %d/%d after %d", done, total, last)
				}
				last = done
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %d bytes", n)
			if n > 0 && last != size {
				t.Errorf("progress ended at %d of %d", last, size)
			}
			if n < tc.wantMin || n > tc.wantMax {
				t.Fatalf("wrote %d bytes, want %d to %d", n, tc.wantMin, tc.wantMax)
			}
			if h := holes(t, f, size); len(h) != 0 {
				t.Fatalf("holes left: %v", h)
			}
			if st, _ := f.Stat(); st.Size() != size {
				t.Fatalf("size %d, want %d", st.Size(), size)
			}
			if tc.name == "data in the middle is kept" {
				got := make([]byte, len(mark))
				if _, err := f.ReadAt(got, 3<<20); err != nil || !bytes.Equal(got, mark) {
					t.Fatalf("data overwritten (%v)", err)
				}
			}
			// A second fill finds nothing to do.
			if n, err := Holes(f, size, nil); err != nil || n != 0 {
				t.Fatalf("second fill wrote %d (%v)", n, err)
			}
		})
	}
}

func TestFileRefusesNonRegular(t *testing.T) {
	if _, err := File(t.TempDir(), nil); err == nil {
		t.Fatal("filled a directory")
	}
	if _, err := File(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Fatal("filled a missing file")
	}
}

// TestFillZeroChunks is the fallback for file systems that report no
// holes: every chunk reading as zeros is rewritten, data is kept.
func TestFillZeroChunks(t *testing.T) {
	const size = 4<<20 + 4096 // a short last chunk
	path := filepath.Join(t.TempDir(), "img")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	mark := []byte("keep me")
	if _, err := f.WriteAt(mark, 2<<20+100); err != nil {
		t.Fatal(err)
	}
	n, err := fillZeroChunks(f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(size - 1<<20); n != want {
		t.Fatalf("wrote %d bytes, want %d (every chunk but the one with data)", n, want)
	}
	got := make([]byte, len(mark))
	if _, err := f.ReadAt(got, 2<<20+100); err != nil || !bytes.Equal(got, mark) {
		t.Fatalf("data changed: %q (%v)", got, err)
	}
	if a := Allocated(f); a < size-1<<20 {
		t.Fatalf("%d bytes allocated after the fallback, want about %d", a, size)
	}
}
