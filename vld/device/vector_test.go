package device

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// TestWriteVecRoundTrip: every implementation writes a vector back to back,
// as the buffers' concatenation written at once would be, and reports its
// whole length.
func TestWriteVecRoundTrip(t *testing.T) {
	for _, im := range impls() {
		for _, c := range vecCases() {
			t.Run(im.name+"/"+c.name, func(t *testing.T) {
				d := im.open(t, confSize)
				var bufs [][]byte
				for i, n := range c.sizes {
					bufs = append(bufs, pattern(n, byte(i+1)))
				}
				keep := slices.Clone(bufs)
				n, err := WriteVec(d, bufs, c.off)
				want := slices.Concat(bufs...)
				if err != nil || n != len(want) {
					t.Fatalf("WriteVec = %d, %v; want %d, nil", n, err, len(want))
				}
				for i := range bufs {
					if len(bufs[i]) != len(keep[i]) || (len(bufs[i]) > 0 && &bufs[i][0] != &keep[i][0]) {
						t.Fatal("WriteVec changed the caller's vector")
					}
				}
				got := make([]byte, len(want))
				if _, err := d.ReadAt(got, c.off); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("read back differs (err %v)", err)
				}
				assertZeroOutside(t, d, c.off, len(want))
			})
		}
	}
}

// vecCase is a vector to write: where, and the sizes of its buffers.
type vecCase struct {
	name  string
	off   int64
	sizes []int
}

func vecCases() []vecCase {
	return []vecCase{
		{"one", DirectAlign, []int{DirectAlign}},
		{"aligned", 0, []int{DirectAlign, 2 * DirectAlign, DirectAlign}},
		{"unaligned", 100, []int{7, 1000, 3}},
		{"to-end", confSize - 3*DirectAlign, []int{DirectAlign, 2 * DirectAlign}},
		{"empty-parts", 512, []int{0, 9, 0}},
	}
}

// TestWriteVecOutOfRange: a vectored write that does not fit writes
// nothing, on every implementation that writes vectors natively.
func TestWriteVecOutOfRange(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			d := im.open(t, confSize)
			vw, ok := d.(VectorWriter)
			if !ok {
				t.Skip("not a VectorWriter: WriteVec issues its buffers one by one")
			}
			fill := bytes.Repeat([]byte{0xAA}, confSize)
			if _, err := d.WriteAt(fill, 0); err != nil {
				t.Fatal(err)
			}
			bufs := [][]byte{pattern(DirectAlign, 1), pattern(DirectAlign, 2)}
			n, err := vw.WriteVecAt(bufs, confSize-DirectAlign)
			if !errors.Is(err, ErrOutOfRange) || n != 0 {
				t.Fatalf("WriteVecAt = %d, %v; want 0, ErrOutOfRange", n, err)
			}
			all := make([]byte, confSize)
			if _, err := d.ReadAt(all, 0); err != nil || !bytes.Equal(all, fill) {
				t.Fatalf("a rejected write changed the device (err %v)", err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := vw.WriteVecAt(bufs, 0); !errors.Is(err, ErrClosed) {
				t.Fatalf("WriteVecAt after Close: %v", err)
			}
		})
	}
}

// TestCrashRecordsVectorParts: a vectored write reaches the base as one
// write but is recorded as one write per buffer, so crash states keep or
// drop each buffer on its own, as they did when the caller issued them
// one by one.
func TestCrashRecordsVectorParts(t *testing.T) {
	base := NewMem(confSize)
	c := NewCrash(base)
	bufs := [][]byte{pattern(512, 1), pattern(1024, 2), pattern(512, 3)}
	if _, err := WriteVec(c, bufs, 512); err != nil {
		t.Fatal(err)
	}
	ops := c.Ops()
	if len(ops) != len(bufs) {
		t.Fatalf("%d ops recorded for a vector of %d buffers", len(ops), len(bufs))
	}
	off := int64(512)
	for i, op := range ops {
		if op.Kind != OpWrite || op.Off != off || !bytes.Equal(op.Data, bufs[i]) || op.Seq != i {
			t.Fatalf("op %d = %v at %d (%d bytes), want write %d at %d", i, op.Kind, op.Off, len(op.Data), i, off)
		}
		off += int64(len(bufs[i]))
	}
	// Keep only the middle buffer: the crash image has it and not the others.
	img, err := c.Image(State{Flushes: 0, Extra: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, confSize)
	if _, err := img.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, confSize)
	copy(want[1024:], bufs[1])
	if !bytes.Equal(got, want) {
		t.Fatalf("crash image keeping only buffer 1 differs at byte %d", firstDiff(got, want))
	}
}

// TestWriteVecOnFaultyCountsBuffers: Faulty is not a VectorWriter, so its
// faults count the buffers of a vector as the writes they were: failing
// the second leaves the first written and the rest not.
func TestWriteVecOnFaultyCountsBuffers(t *testing.T) {
	m := NewMem(confSize)
	f := NewFaulty(m, Fault{Op: OpWrite, After: 1})
	bufs := [][]byte{pattern(512, 1), pattern(512, 2), pattern(512, 3)}
	n, err := WriteVec(f, bufs, 0)
	if !errors.Is(err, ErrInjected) || n != 512 {
		t.Fatalf("WriteVec = %d, %v; want 512, ErrInjected", n, err)
	}
	got := make([]byte, 1536)
	if _, err := m.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:512], bufs[0]) || !bytes.Equal(got[512:], make([]byte, 1024)) {
		t.Fatal("want the first buffer written and nothing after it")
	}
}
