package device

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// impl makes a fresh, zero-filled device of the given size for a conformance
// test. Every implementation must pass the same table.
type impl struct {
	name string
	open func(t *testing.T, size int64) Device
}

func impls() []impl {
	return []impl{
		{"mem", func(t *testing.T, size int64) Device { return NewMem(size) }},
		{"file", func(t *testing.T, size int64) Device { return openTemp(t, size, FileOptions{}) }},
		{"file-direct", func(t *testing.T, size int64) Device { return openTemp(t, size, FileOptions{Direct: true}) }},
		{"crash-mem", func(t *testing.T, size int64) Device { return NewCrash(NewMem(size)) }},
		{"crash-file", func(t *testing.T, size int64) Device { return NewCrash(openTemp(t, size, FileOptions{})) }},
		{"faulty-mem", func(t *testing.T, size int64) Device { return NewFaulty(NewMem(size), Fault{After: 1 << 30}) }},
	}
}

// openTemp creates a file device of size bytes in a test directory, skipping
// Direct variants where the file system refuses O_DIRECT.
func openTemp(t *testing.T, size int64, o FileOptions) *File {
	t.Helper()
	o.Create, o.Size = true, size
	path := filepath.Join(t.TempDir(), "img")
	d, err := OpenFile(path, o)
	if errors.Is(err, ErrNoDirect) {
		t.Skipf("O_DIRECT unsupported here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func pattern(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = seed + byte(i*7)
	}
	return p
}

const confSize = 4 * DirectAlign

func TestConformanceRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		off  int64
		n    int
	}{
		{"start", 0, 100},
		{"aligned-block", DirectAlign, DirectAlign},
		{"unaligned-across-blocks", DirectAlign - 3, 9},
		{"tail", confSize - 17, 17},
		{"whole", 0, confSize},
		{"empty-at-end", confSize, 0},
	}
	for _, im := range impls() {
		for _, c := range cases {
			t.Run(im.name+"/"+c.name, func(t *testing.T) {
				d := im.open(t, confSize)
				if d.Size() != confSize {
					t.Fatalf("Size = %d, want %d", d.Size(), confSize)
				}
				want := pattern(c.n, 3)
				if n, err := d.WriteAt(want, c.off); err != nil || n != c.n {
					t.Fatalf("WriteAt = %d, %v", n, err)
				}
				got := make([]byte, c.n)
				if n, err := d.ReadAt(got, c.off); err != nil || n != c.n {
					t.Fatalf("ReadAt = %d, %v", n, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatal("read back different bytes")
				}
				if err := d.Flush(); err != nil {
					t.Fatal(err)
				}
				assertZeroOutside(t, d, c.off, c.n)
			})
		}
	}
}

// assertZeroOutside checks that nothing but [off, off+n) was written.
func assertZeroOutside(t *testing.T, d Device, off int64, n int) {
	t.Helper()
	all := make([]byte, d.Size())
	if _, err := d.ReadAt(all, 0); err != nil {
		t.Fatal(err)
	}
	for i, b := range all {
		if (int64(i) < off || int64(i) >= off+int64(n)) && b != 0 {
			t.Fatalf("byte %d = %#x outside the write [%d, +%d)", i, b, off, n)
		}
	}
}

func TestConformanceOutOfRange(t *testing.T) {
	cases := []struct {
		name     string
		off      int64
		n        int
		readable int // bytes a read returns before failing
	}{
		{"past-end", confSize, 1, 0},
		{"straddles-end", confSize - 10, 20, 10},
		{"negative", -1, 4, 0},
		{"far", 1 << 62, 8, 0},
		{"overflow", 1<<63 - 4, 8, 0},
	}
	for _, im := range impls() {
		for _, c := range cases {
			t.Run(im.name+"/"+c.name, func(t *testing.T) {
				d := im.open(t, confSize)
				fill := bytes.Repeat([]byte{0xAA}, confSize)
				if _, err := d.WriteAt(fill, 0); err != nil {
					t.Fatal(err)
				}
				n, err := d.WriteAt(pattern(c.n, 1), c.off)
				if !errors.Is(err, ErrOutOfRange) || n != 0 {
					t.Fatalf("WriteAt = %d, %v; want 0, ErrOutOfRange", n, err)
				}
				got := make([]byte, c.n)
				n, err = d.ReadAt(got, c.off)
				if !errors.Is(err, ErrOutOfRange) || n != c.readable {
					t.Fatalf("ReadAt = %d, %v; want %d, ErrOutOfRange", n, err, c.readable)
				}
				if !bytes.Equal(got[:n], fill[:n]) {
					t.Fatal("short read returned wrong bytes")
				}
				all := make([]byte, confSize)
				if _, err := d.ReadAt(all, 0); err != nil || !bytes.Equal(all, fill) {
					t.Fatalf("a rejected write changed the device (err %v)", err)
				}
			})
		}
	}
}

func TestConformanceClosed(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			d := im.open(t, confSize)
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 8)
			if _, err := d.ReadAt(buf, 0); !errors.Is(err, ErrClosed) {
				t.Errorf("ReadAt after Close: %v", err)
			}
			if _, err := d.WriteAt(buf, 0); !errors.Is(err, ErrClosed) {
				t.Errorf("WriteAt after Close: %v", err)
			}
			if err := d.Flush(); !errors.Is(err, ErrClosed) {
				t.Errorf("Flush after Close: %v", err)
			}
			if err := d.Close(); !errors.Is(err, ErrClosed) {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestMemFromCopies(t *testing.T) {
	img := []byte("hello")
	m := MemFrom(img)
	img[0] = 'j'
	got := m.Bytes()
	if string(got) != "hello" {
		t.Fatalf("MemFrom shares its input: %q", got)
	}
	got[1] = 'a'
	if string(m.Bytes()) != "hello" {
		t.Fatal("Bytes shares the device's buffer")
	}
	if NewMem(-5).Size() != 0 {
		t.Fatal("negative size not clamped")
	}
}
