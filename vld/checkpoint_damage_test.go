package vld

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// TestCheckpointSurvivesDamage (issue 34): both checkpoint slots hold the
// checkpoint and each directory block has a copy, so one damaged slot or
// directory block loses nothing: the volume opens with every piece's
// newest version, committed before and after the checkpoint (the volume
// stops as before piece copies, so that a log follows the checkpoint). Both slots
// damaged is refused, never opened from stale state.
func TestCheckpointSurvivesDamage(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	const pieces = 600 // more than one directory block lists
	want := map[uint32]string{}
	commit := roundCommitter(t, v, want)
	for lo := uint32(0); lo < pieces; lo += 100 {
		commit(lo, lo+100, 0)
	}
	checkpointNow(t, v)
	ck := v.log.ckpt
	if len(ck.DirBlocks) < 2 || len(ck.DirCopies) != len(ck.DirBlocks) {
		t.Fatalf("checkpoint %d: %d directory blocks, %d copies", ck.Seq, len(ck.DirBlocks), len(ck.DirCopies))
	}
	commit(7, 9, 1) // after the checkpoint: in the log only
	stopAsBefore(t, v)
	img := dev.Bytes()

	flip := func(d *device.Mem, a uint64) {
		b := make([]byte, 1)
		d.ReadAt(b, int64(a)*4096+100)
		b[0] ^= 0x20
		d.WriteAt(b, int64(a)*4096+100)
	}
	for _, c := range []struct {
		name    string
		damaged []uint64
		slots   int // slots holding the checkpoint used
		copies  int // directory blocks read from their copy
		refused bool
	}{
		{"nothing", nil, 2, 0, false},
		{"slot A", []uint64{ondisk.CheckpointA}, 1, 0, false},
		{"slot B", []uint64{ondisk.CheckpointB}, 1, 0, false},
		{"a directory block", []uint64{ck.DirBlocks[1]}, 2, 1, false},
		{"every directory block", ck.DirBlocks, 2, len(ck.DirBlocks), false},
		{"a copy", []uint64{ck.DirCopies[0]}, 2, 0, false},
		{"slot A and a directory block", []uint64{ondisk.CheckpointA, ck.DirBlocks[0]}, 1, 1, false},
		{"both slots", []uint64{ondisk.CheckpointA, ondisk.CheckpointB}, 0, 0, true},
		{"a block and its copy", []uint64{ck.DirBlocks[0], ck.DirCopies[0]}, 0, 0, true},
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
			if lost, _ := w.Redundancy(); (lost != "") != (len(c.damaged) > 0) {
				t.Fatalf("lost redundancy %q with %d blocks damaged", lost, len(c.damaged))
			}
			if r := w.Recovery(); r.CheckpointSlots != c.slots || r.DirCopiesUsed != c.copies {
				t.Fatalf("checkpoint from %d slots, %d directory copies used; want %d and %d", r.CheckpointSlots, r.DirCopiesUsed, c.slots, c.copies)
			}
			checkPieces(t, w, want)
			// A read-write open writes the checkpoint whole again.
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
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := Open(keepOpen{d}, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if r := again.Recovery(); r.CheckpointSlots != 2 || r.DirCopiesUsed != 0 {
				t.Fatalf("after a read-write open: checkpoint from %d slots, %d directory copies used", r.CheckpointSlots, r.DirCopiesUsed)
			}
			checkPieces(t, again, want)
		})
	}
}

func checkPieces(t *testing.T, v *Volume, want map[uint32]string) {
	t.Helper()
	got := v.Pieces()
	for p, s := range want {
		if g := string(bytes.TrimRight(got[p], "\x00")); g != s {
			t.Fatalf("piece %d: %.60q, want %q", p, g, s)
		}
	}
}

// TestDamagedRootEntry: after a clean stop by a build before piece copies
// the tail names the newest log entry; if it is damaged, the last commit
// is lost. Open refuses, saying
// so and naming fsck --repair; with AcceptLoss (the repair's open) it
// recovers the state before that commit and reports RootDamaged.
func TestDamagedRootEntry(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	for i := range 6 {
		if err := v.Commit(map[uint32][]byte{uint32(i % 3): []byte(fmt.Sprintf("version %d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	v.mu.Lock()
	root := v.log.root
	v.mu.Unlock()
	stopAsBefore(t, v)
	b := make([]byte, 1)
	dev.ReadAt(b, int64(root.Addr)*4096+200)
	b[0] ^= 0x08
	dev.WriteAt(b, int64(root.Addr)*4096+200)
	if _, err := Open(keepOpen{dev}, Options{ReadOnly: true}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "fsck --repair") {
		t.Fatalf("open with the newest entry damaged: %v", err)
	}
	w, err := Open(keepOpen{dev}, Options{AcceptLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(nil); err != nil {
		t.Fatal(err)
	}
	if !w.Recovery().RootDamaged {
		t.Fatal("RootDamaged not reported")
	}
	// The last commit (piece 2, version 5) is lost; the one before stands.
	checkPieces(t, w, map[uint32]string{0: "version 3", 1: "version 4", 2: "version 2"})
	// The recovered volume takes new commits and reopens cleanly.
	if err := w.Commit(map[uint32][]byte{2: []byte("version 6")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(keepOpen{dev}, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	checkPieces(t, again, map[uint32]string{0: "version 3", 1: "version 4", 2: "version 6"})
}
