package vld

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// TestSectorEntriesChargeTheirSectors: on a volume with sector entries
// (the default) a commit of a small piece is charged one sector's
// transfer, and data with its entry as one request the data and that
// sector; the device is given the entry's whole block, the sectors after
// the entry zeroed (a short write made the host read the page first:
// Volume.wholeLastLocked). A volume formatted with BlockEntries writes
// and is charged whole blocks, as before. Both reopen to the same pieces,
// after a clean stop and after a crash.
func TestSectorEntriesChargeTheirSectors(t *testing.T) {
	for _, blockEntries := range []bool{false, true} {
		t.Run(fmt.Sprintf("block entries %v", blockEntries), func(t *testing.T) {
			base := device.NewMem(16 << 20)
			garbage := bytes.Repeat([]byte{0x5a}, int(base.Size()))
			if _, err := base.WriteAt(garbage, 0); err != nil {
				t.Fatal(err)
			}
			if err := Format(base, FormatOptions{Model: testModel(t, "st19101"), Kind: "test", BlockEntries: blockEntries}); err != nil {
				t.Fatal(err)
			}
			crash := device.NewCrash(base)
			v, err := Open(keepOpen{crash}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Start(); err != nil {
				t.Fatal(err)
			}
			spb := int64(v.BlockSize() / disk.SectorSize)
			entry := int64(1)
			if blockEntries {
				entry = spb
			}

			s0 := v.Stats()
			if err := v.Commit(map[uint32][]byte{3: []byte("a small piece")}); err != nil {
				t.Fatal(err)
			}
			s1 := v.Stats()
			if got := s1.SectorsWritten - s0.SectorsWritten; got != entry {
				t.Errorf("commit of a small piece wrote %d sectors, want %d", got, entry)
			}
			root, _ := v.LogEntryBlocks()
			blk := make([]byte, v.BlockSize())
			if _, err := base.ReadAt(blk, int64(root)*int64(v.BlockSize())); err != nil {
				t.Fatal(err)
			}
			if e, err := ondisk.DecodeEntry(blk); err != nil || e.Sectors == blockEntries {
				t.Fatalf("root entry: %+v, %v", e, err)
			}
			if rest := blk[entry*disk.SectorSize:]; !blockEntries && !bytes.Equal(rest, make([]byte, len(rest))) {
				t.Error("the device was not given a sector entry's whole block, the rest zeroed")
			}

			data := [][]byte{block(v.BlockSize(), 7)}
			s1 = v.Stats()
			if _, err := v.WriteCommit(data, []uint32{4}, func([]Addr) map[uint32][]byte {
				return map[uint32][]byte{4: []byte("names the block")}
			}); err != nil {
				t.Fatal(err)
			}
			s2 := v.Stats()
			if got, want := s2.SectorsWritten-s1.SectorsWritten, spb+entry; got != want {
				t.Errorf("data block and its entry: %d sectors, want %d (%d requests)", got, want, s2.Writes-s1.Writes)
			}

			want := v.Pieces()
			img, err := crash.Image(device.State{Flushes: crash.Flushes()})
			if err != nil {
				t.Fatal(err)
			}
			crashed, err := Open(img, Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("open after a crash: %v", err)
			}
			if !samePieces(crashed.Pieces(), want, v.PayloadSize()) {
				t.Error("after a crash: the pieces differ")
			}
			crashed.Close()
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			v2, err := Open(keepOpen{base}, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer v2.Close()
			if !samePieces(v2.Pieces(), want, v.PayloadSize()) {
				t.Error("after a clean stop: the pieces differ")
			}
		})
	}
}
