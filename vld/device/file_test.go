package device

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestOpenFileLocks(t *testing.T) {
	rw := FileOptions{}
	ro := FileOptions{ReadOnly: true}
	cases := []struct {
		name         string
		first, again FileOptions
		wantLocked   bool
	}{
		{"rw-then-rw", rw, rw, true},
		{"rw-then-ro", rw, ro, true},
		{"ro-then-rw", ro, rw, true},
		{"ro-then-ro", ro, ro, false},
		{"rw-then-nolock", rw, FileOptions{NoLock: true}, false},
		{"nolock-then-rw", FileOptions{NoLock: true}, rw, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := newImage(t, 8192)
			a, err := OpenFile(path, c.first)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := OpenFile(path, c.again)
			if c.wantLocked {
				if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
					t.Fatalf("second open: %v; want ErrLocked naming %s", err, path)
				}
				return
			}
			if err != nil {
				t.Fatalf("second open: %v", err)
			}
			b.Close()
		})
	}
}

func TestCloseReleasesLock(t *testing.T) {
	path := newImage(t, 8192)
	a, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	b.Close()
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	path := newImage(t, 8192)
	d, err := OpenFile(path, FileOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n, err := d.WriteAt([]byte("x"), 0); !errors.Is(err, ErrReadOnly) || n != 0 {
		t.Fatalf("WriteAt = %d, %v; want ErrReadOnly", n, err)
	}
	if err := d.Flush(); err != nil {
		t.Fatalf("Flush on read-only: %v", err)
	}
	buf := make([]byte, 4)
	if _, err := d.ReadAt(buf, 100); err != nil || !bytes.Equal(buf, pattern(8192, 9)[100:104]) {
		t.Fatalf("ReadAt = %v, %x", err, buf)
	}
}

func TestOpenFileOptions(t *testing.T) {
	cases := []struct {
		name     string
		existing int64 // -1: no file
		o        FileOptions
		wantSize int64
		wantErr  error
	}{
		{"create-new-with-size", -1, FileOptions{Create: true, Size: 12288}, 12288, nil},
		{"create-keeps-size", 5000, FileOptions{Create: true}, 5000, nil},
		{"create-shrinks", 9000, FileOptions{Create: true, Size: 4096}, 4096, nil},
		{"open-existing", 777, FileOptions{}, 777, nil},
		{"missing-without-create", -1, FileOptions{}, 0, os.ErrNotExist},
		{"size-without-create", 777, FileOptions{Size: 4096}, 0, ErrBadOptions},
		{"negative-size", -1, FileOptions{Create: true, Size: -1}, 0, ErrBadOptions},
		{"create-read-only", -1, FileOptions{Create: true, ReadOnly: true}, 0, ErrBadOptions},
		{"direct-odd-size", -1, FileOptions{Create: true, Size: 1000, Direct: true}, 0, ErrBadOptions},
		{"direct-existing-odd-size", 1000, FileOptions{Direct: true}, 0, ErrBadOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "img")
			if c.existing >= 0 {
				if err := os.WriteFile(path, make([]byte, c.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			d, err := OpenFile(path, c.o)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Size() != c.wantSize || st.Size() != c.wantSize || d.Path() != path {
				t.Fatalf("Size %d, file %d, path %q; want %d", d.Size(), st.Size(), d.Path(), c.wantSize)
			}
			if c.existing < 0 && st.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v, want 0600", st.Mode().Perm())
			}
		})
	}
}

func TestOpenFileRejectsDirectory(t *testing.T) {
	if _, err := OpenFile(t.TempDir(), FileOptions{ReadOnly: true}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("err = %v, want ErrBadOptions", err)
	}
}

// TestLockedCreateDoesNotTruncate: the lock is taken before resizing, so a
// Create that loses the lock race leaves the holder's image alone.
func TestLockedCreateDoesNotTruncate(t *testing.T) {
	path := newImage(t, 8192)
	a, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := OpenFile(path, FileOptions{Create: true, Size: 4096}); !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 8192 {
		t.Fatalf("image resized by a failed open: %v %v", st.Size(), err)
	}
}

// TestDirectMatchesModel drives a Direct file with random unaligned buffers,
// offsets and lengths and compares every read with a Mem model, so the bounce
// and read-modify-write paths are checked byte for byte.
func TestDirectMatchesModel(t *testing.T) {
	const size = 16 * DirectAlign
	d := openTemp(t, size, FileOptions{Direct: true})
	model := NewMem(size)
	rng := rand.New(rand.NewSource(1))
	for i := range 300 {
		off := rng.Int63n(size)
		n := rng.Intn(int(min(size-off, 3*DirectAlign))) + 1
		if rng.Intn(4) == 0 { // aligned case, through a misaligned buffer
			off -= off % DirectAlign
			n = DirectAlign
		}
		raw := AlignedBuffer(n + 1)
		skew := rng.Intn(2) // the buffer's address aligned or not
		buf := raw[skew : skew+n]
		if i%2 == 0 {
			copy(buf, pattern(n, byte(i)))
			mustWrite(t, d, buf, off)
			mustWrite(t, model, buf, off)
			continue
		}
		want := make([]byte, n)
		if _, err := model.ReadAt(want, off); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ReadAt(buf, off); err != nil || !bytes.Equal(buf, want) {
			t.Fatalf("op %d: read [%d,+%d) differs from the model (err %v)", i, off, n, err)
		}
	}
	if !d.Direct() {
		t.Fatal("Direct() = false")
	}
}

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{0, 1, DirectAlign, 3*DirectAlign + 5} {
		b := AlignedBuffer(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("AlignedBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		if n >= DirectAlign && !aligned(b[:DirectAlign], 0) {
			t.Fatalf("AlignedBuffer(%d) is not aligned", n)
		}
	}
}

func mustWrite(t *testing.T, d Device, p []byte, off int64) {
	t.Helper()
	if n, err := d.WriteAt(p, off); err != nil || n != len(p) {
		t.Fatalf("WriteAt(%d bytes at %d) = %d, %v", len(p), off, n, err)
	}
}

// newImage writes a size-byte image filled with pattern(size, 9).
func newImage(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(path, pattern(size, 9), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLockOutlivesBriefDuplicate: a copy of the descriptor (what a child
// forked by another goroutine holds until its exec) keeps a closed image's
// flock for a moment; a reopen in that moment waits instead of failing,
// and a lock still held after lockWait is refused.
func TestLockOutlivesBriefDuplicate(t *testing.T) {
	path := newImage(t, 8192)
	a, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dup, err := unix.Dup(int(a.f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	go func() {
		time.Sleep(lockWait / 10)
		unix.Close(dup)
	}()
	b, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatalf("reopen while a duplicate lived for %v: %v", lockWait/10, err)
	}
	defer b.Close()
	t0 := time.Now()
	if _, err := OpenFile(path, FileOptions{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open of a held image: %v, want ErrLocked", err)
	}
	if d := time.Since(t0); d < lockWait {
		t.Fatalf("refused after %v, before lockWait %v", d, lockWait)
	}
}
