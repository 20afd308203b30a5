package vld

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// copiedPieces stops v (Close: a checkpoint at rest) after committing
// versions of pieces, some since the last checkpoint, and returns the
// image, the pieces' contents and where each piece's two copies are.
func copiedPieces(t *testing.T) ([]byte, map[uint32]string, map[uint32][]Addr) {
	t.Helper()
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	const pieces = 300 // more than one directory block lists
	want := map[uint32]string{}
	commit := roundCommitter(t, v, want)
	for lo := uint32(0); lo < pieces; lo += 100 {
		commit(lo, lo+100, 0)
	}
	checkpointNow(t, v)
	commit(7, 9, 1) // after the checkpoint: in the log only, until Close
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if n := v.Stats().PieceCopies; n != 2*pieces {
		t.Fatalf("Close wrote %d piece copies, want %d", n, 2*pieces)
	}
	w, err := Open(keepOpen{dev}, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if r := w.Recovery(); !r.Clean || r.Entries != 0 {
		t.Fatalf("after Close: clean %v, %d log entries walked; want a clean stop with an empty log", r.Clean, r.Entries)
	}
	at := map[uint32][]Addr{}
	for p, l := range w.log.cur {
		if !l.redundant() {
			t.Fatalf("piece %d has no second copy after Close", p)
		}
		at[p] = l.blocks()
	}
	if err := w.Check(nil); err != nil {
		t.Fatal(err)
	}
	return dev.Bytes(), want, at
}

// TestPieceCopiesSurviveDamage (issue 34): after a clean stop every piece
// is in two copies, so no single damaged block of the volume's own
// metadata loses a commit: a damaged copy is read around, reported as
// lost redundancy, and written again by a read-write open. Both copies
// of one version damaged is refused, never opened from older state.
func TestPieceCopiesSurviveDamage(t *testing.T) {
	img, want, at := copiedPieces(t)
	flip := func(d *device.Mem, a Addr) {
		b := make([]byte, 1)
		d.ReadAt(b, int64(a)*4096+300)
		b[0] ^= 0x04
		d.WriteAt(b, int64(a)*4096+300)
	}
	var firsts, seconds []Addr
	for p := range uint32(len(at)) {
		firsts, seconds = append(firsts, at[p][0]), append(seconds, at[p][1])
	}
	for _, c := range []struct {
		name    string
		damaged []Addr
		refused bool
	}{
		{"nothing", nil, false},
		{"the first copy of a piece logged since the checkpoint", []Addr{at[8][0]}, false},
		{"the second copy of an older piece", []Addr{at[250][1]}, false},
		{"one copy of every piece", append(firsts[:150:150], seconds[150:]...), false},
		{"both copies of one piece", at[8], true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := device.MemFrom(img)
			for _, a := range c.damaged {
				flip(d, a)
			}
			w, err := Open(keepOpen{d}, Options{ReadOnly: true})
			if c.refused {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("open: %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if got := w.Recovery().PieceCopiesDamaged; got != len(c.damaged) {
				t.Fatalf("%d damaged copies reported, want %d", got, len(c.damaged))
			}
			if lost, _ := w.Redundancy(); (lost != "") != (len(c.damaged) > 0) {
				t.Fatalf("lost redundancy %q with %d blocks damaged", lost, len(c.damaged))
			}
			checkPieces(t, w, want)
			rw, err := Open(keepOpen{d}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := rw.Start(); err != nil {
				t.Fatal(err)
			}
			if got, want := rw.Recovery().CheckpointMended, len(c.damaged) > 0; got != want {
				t.Fatalf("mended %v, want %v", got, want)
			}
			if err := rw.Check(nil); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := Open(keepOpen{d}, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if r := again.Recovery(); r.PieceCopiesDamaged != 0 {
				t.Fatalf("after a read-write open: %d damaged copies", r.PieceCopiesDamaged)
			}
			if err := again.Check(nil); err != nil {
				t.Fatal(err)
			}
			checkPieces(t, again, want)
		})
	}
}

// TestProtect: a running volume's new versions are single log entries
// until Protect (or Close) copies them; Protect with nothing to copy
// writes nothing, and a commit after it logs on as before.
func TestProtect(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	for i := range 5 {
		if err := v.Commit(map[uint32][]byte{uint32(i): []byte(fmt.Sprint("v", i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Protect(); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	for p, l := range v.log.cur {
		if !l.redundant() {
			t.Fatalf("piece %d not copied by Protect", p)
		}
	}
	v.mu.Unlock()
	writes := v.Stats().BlocksWritten
	if err := v.Protect(); err != nil {
		t.Fatal(err)
	}
	if got := v.Stats().BlocksWritten; got != writes {
		t.Fatalf("a second Protect wrote %d blocks", got-writes)
	}
	if err := v.Commit(map[uint32][]byte{2: []byte("v2 again")}); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	two := v.log.cur[2]
	v.mu.Unlock()
	if two.copies {
		t.Fatal("a version committed after Protect is taken for a copied one")
	}
	if err := v.Check(nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := Open(keepOpen{dev}, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	checkPieces(t, w, map[uint32]string{0: "v0", 1: "v1", 2: "v2 again", 3: "v3", 4: "v4"})
}
