package vld

import (
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// TestCheckpointKeepsUnchangedDirBlocks (issue 33): a checkpoint writes
// only the directory blocks whose lists changed, with their copies, and
// keeps the others where the previous checkpoint wrote them, naming the
// checkpoint that did (slot version 4). Before, every checkpoint wrote
// every block and its copy again: with 600 pieces and two of them
// changed, 8 directory blocks where 2 will do. The kept blocks reopen,
// from a clean stop and from a crash, and a kept block found damaged at
// open is written again by the mending checkpoint, not kept.
func TestCheckpointKeepsUnchangedDirBlocks(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	const pieces = 600 // four directory blocks of 168
	want := map[uint32]string{}
	commit := roundCommitter(t, v, want)
	for lo := uint32(0); lo < pieces; lo += 100 {
		commit(lo, lo+100, 0)
	}
	checkpointNow(t, v)
	ck1 := v.log.ckpt
	if len(ck1.DirBlocks) != 4 || len(ck1.DirCopies) != 4 || ck1.DirSeqs != nil {
		t.Fatalf("first checkpoint: %d directory blocks, %d copies, sequences %v", len(ck1.DirBlocks), len(ck1.DirCopies), ck1.DirSeqs)
	}

	commit(400, 402, 1) // pieces the third block lists (336-503)
	w0 := v.Stats().BlocksWritten
	checkpointNow(t, v)
	ck2 := v.log.ckpt
	// Block 2 and its copy, and the two slots.
	if got := v.Stats().BlocksWritten - w0; got != 4 {
		t.Fatalf("a checkpoint with one directory block changed wrote %d blocks, want 4", got)
	}
	for i := range 4 {
		same := ck2.DirBlocks[i] == ck1.DirBlocks[i] && ck2.DirCopies[i] == ck1.DirCopies[i]
		if same != (i != 2) {
			t.Fatalf("directory block %d: at %d/%d, was %d/%d", i, ck2.DirBlocks[i], ck2.DirCopies[i], ck1.DirBlocks[i], ck1.DirCopies[i])
		}
	}
	if want := []uint64{ck1.Seq, ck1.Seq, ck2.Seq, ck1.Seq}; !slices.Equal(ck2.DirSeqs, want) {
		t.Fatalf("sequences %v, want %v", ck2.DirSeqs, want)
	}
	if err := v.Check(nil); err != nil {
		t.Fatal(err)
	}

	// A crash now (no clean stop) and a clean stop both reopen from it.
	crash := dev.Bytes()
	commit(0, 1, 2)
	checkpointNow(t, v) // block 0 changes: blocks 1-3 stay, of two ages
	ck3 := v.log.ckpt
	if want := []uint64{ck3.Seq, ck1.Seq, ck2.Seq, ck1.Seq}; !slices.Equal(ck3.DirSeqs, want) {
		t.Fatalf("sequences %v, want %v", ck3.DirSeqs, want)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	crashWant := maps.Clone(want)
	crashWant[0] = "piece 0 round 0"
	for _, c := range []struct {
		name    string
		img     []byte
		want    map[uint32]string
		version uint16
	}{
		{"crash", crash, crashWant, ondisk.CheckpointDirSeqsVersion},
		// The clean stop's checkpoint gives every piece two copies:
		// every list changes, and a checkpoint writing every block
		// needs no sequences.
		{"clean stop", dev.Bytes(), want, ondisk.CheckpointVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := device.MemFrom(c.img)
			slot := make([]byte, 4096)
			d.ReadAt(slot, ondisk.CheckpointA*4096)
			if got := binary.LittleEndian.Uint16(slot[8:]); got != c.version {
				t.Fatalf("slot version %d, want %d", got, c.version)
			}
			w, err := Open(keepOpen{d}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			checkPieces(t, w, c.want)
			if err := w.Check(nil); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}

	// A kept block's copy damaged: open reads the block and counts the
	// copy damaged, and takes the block for unsound, so that no later
	// checkpoint keeps it; the mending checkpoint writes it again.
	d := device.MemFrom(crash)
	b := make([]byte, 1)
	d.ReadAt(b, int64(ck2.DirCopies[0])*4096+100)
	b[0] ^= 1
	d.WriteAt(b, int64(ck2.DirCopies[0])*4096+100)
	w, err := Open(keepOpen{d}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Recovery(); r.DirCopiesDamaged != 1 {
		t.Fatalf("recovery %+v: want one damaged copy", r)
	}
	if l := w.log.dirList; len(l) != 4 || l[0] != nil || l[1] == nil {
		t.Fatalf("directory blocks taken for sound: %v", []bool{l[0] != nil, l[1] != nil, l[2] != nil, l[3] != nil})
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if got := w.log.ckpt; !w.Recovery().CheckpointMended || got.DirCopies[0] == ck2.DirCopies[0] {
		t.Fatalf("mended %v: the damaged block's copy is at %d, was %d", w.Recovery().CheckpointMended, got.DirCopies[0], ck2.DirCopies[0])
	}
	checkPieces(t, w, crashWant)
	if err := w.Check(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
