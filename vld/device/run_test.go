package device

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// TestRunRoundTrip: on every implementation WriteRun writes a run back to
// back as its concatenation written at once would be, and ReadRun reads it
// back into the same shape, without touching the caller's vector.
func TestRunRoundTrip(t *testing.T) {
	for _, im := range impls() {
		for _, c := range vecCases() {
			t.Run(im.name+"/"+c.name, func(t *testing.T) {
				d := im.open(t, confSize)
				var bufs, back [][]byte
				for i, n := range c.sizes {
					bufs = append(bufs, pattern(n, byte(i+1)))
					back = append(back, make([]byte, n))
				}
				want := slices.Concat(bufs...)
				if n, err := WriteRun(d, bufs, c.off); err != nil || n != len(want) {
					t.Fatalf("WriteRun = %d, %v; want %d, nil", n, err, len(want))
				}
				keep := slices.Clone(back)
				if n, err := ReadRun(d, back, c.off); err != nil || n != len(want) {
					t.Fatalf("ReadRun = %d, %v; want %d, nil", n, err, len(want))
				}
				for i := range back {
					if len(back[i]) != len(keep[i]) || (len(back[i]) > 0 && &back[i][0] != &keep[i][0]) {
						t.Fatal("ReadRun changed the caller's vector")
					}
					if !bytes.Equal(back[i], bufs[i]) {
						t.Fatalf("part %d read back differs", i)
					}
				}
				assertZeroOutside(t, d, c.off, len(want))
			})
		}
	}
}

// TestRunIsOneWrite: a recording device sees a run as one write, as before
// runs were written without joining them, so crash states keep or drop a
// run whole (VectorWriter's buffers, by contrast, are separate writes).
func TestRunIsOneWrite(t *testing.T) {
	c := NewCrash(NewMem(confSize))
	bufs := [][]byte{pattern(512, 1), pattern(512, 2), pattern(512, 3)}
	if _, err := WriteRun(c, bufs, 1024); err != nil {
		t.Fatal(err)
	}
	ops := c.Ops()
	if len(ops) != 1 || ops[0].Off != 1024 || !bytes.Equal(ops[0].Data, slices.Concat(bufs...)) {
		t.Fatalf("recorded %d ops for one run; want one write of the joined run", len(ops))
	}
}

// TestRunOutOfRange: a run that does not fit reads and writes nothing.
func TestRunOutOfRange(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			d := im.open(t, confSize)
			bufs := [][]byte{pattern(DirectAlign, 1), pattern(DirectAlign, 2)}
			off := int64(confSize - DirectAlign)
			if _, err := WriteRun(d, bufs, off); !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("WriteRun past the end: %v; want ErrOutOfRange", err)
			}
			assertZeroOutside(t, d, 0, 0)
			back := [][]byte{make([]byte, DirectAlign), make([]byte, DirectAlign)}
			if _, err := ReadRun(d, back, off); !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("ReadRun past the end: %v; want ErrOutOfRange", err)
			}
		})
	}
}
