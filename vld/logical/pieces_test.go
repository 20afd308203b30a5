package logical

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// TestPieceEntriesFormat: a disk keeps the piece size it was formatted
// with; block pieces are the default, and a disk made before sector
// pieces (no piece size in its superblock area) opens with them; sizes a
// piece cannot hold, or too many pieces for the checkpoint directory, are
// refused.
func TestPieceEntriesFormat(t *testing.T) {
	bs := 4096
	for _, c := range []struct {
		name string
		size int64
		per  int
		want int   // 0: refused
		err  error // when refused
	}{
		{"default", 8 << 20, 0, BlockPieceEntries(bs), nil},
		{"sector", 8 << 20, SectorPieceEntries, SectorPieceEntries, nil},
		{"block", 8 << 20, BlockPieceEntries(bs), BlockPieceEntries(bs), nil},
		{"larger than a piece", 8 << 20, BlockPieceEntries(bs) + 1, 0, vld.ErrInvalid},
		{"negative", 8 << 20, -1, 0, vld.ErrInvalid},
		// 1 GiB of one-entry pieces: about 65,000 pieces, more than 160
		// directory blocks of 168 list.
		{"too many pieces", 1 << 30, 1, 0, vld.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A sparse file: the large case writes only its fixed blocks.
			dev, err := device.OpenFile(filepath.Join(t.TempDir(), "img"), device.FileOptions{Create: true, Size: c.size})
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			err = FormatWith(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceEager, c.per)
			if c.want == 0 {
				if !errors.Is(err, c.err) {
					t.Fatalf("format: %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := Open(keepOpen{dev}, vld.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.PieceEntries() != c.want || d.Blocks() != BlocksPer(dev.Size()/int64(bs), bs, c.want) {
				t.Fatalf("%d entries a piece, %d blocks; want %d, %d", d.PieceEntries(), d.Blocks(), c.want, BlocksPer(dev.Size()/int64(bs), bs, c.want))
			}
		})
	}
	t.Run("made before sector pieces", func(t *testing.T) {
		dev := device.NewMem(8 << 20)
		n := Blocks(dev.Size()/int64(bs), bs)
		app := append(binary.LittleEndian.AppendUint64(nil, uint64(n)), byte(vld.PlaceEager)) // 9 bytes, as then
		if err := vld.Format(dev, vld.FormatOptions{Model: testModel(t, "st19101"), Kind: Kind, AppData: app}); err != nil {
			t.Fatal(err)
		}
		d, err := Open(keepOpen{dev}, vld.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if d.PieceEntries() != BlockPieceEntries(bs) {
			t.Fatalf("%d entries a piece", d.PieceEntries())
		}
	})
}

// TestSectorPiecesUpdateSectors (issue 33): on a filled disk a synchronous
// one-block update writes its data block and one sector with sector
// pieces, and seven sectors more with block pieces (a 3 KiB piece of
// non-zero addresses).
func TestSectorPiecesUpdateSectors(t *testing.T) {
	for _, c := range []struct {
		per    int
		lo, hi int64 // sectors the update writes
	}{
		{SectorPieceEntries, 9, 9},
		{0, 15, 16},
	} {
		t.Run(fmt.Sprint(c.per), func(t *testing.T) {
			dev := device.NewMem(16 << 20)
			if err := FormatWith(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceEager, c.per); err != nil {
				t.Fatal(err)
			}
			d, err := Open(keepOpen{dev}, vld.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			bs := d.BlockSize()
			const fill = 2048
			for l := int64(0); l < fill; l += 64 {
				data := make([][]byte, 64)
				for i := range data {
					data[i] = block(bs, byte(l+int64(i)))
				}
				if err := d.Write(l, data); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			for i := range int64(20) {
				s0 := d.Volume().Stats()
				// Within the first two block pieces, which the fill filled.
				if err := d.WriteSync(i*97%1536, [][]byte{block(bs, 0xee)}); err != nil {
					t.Fatal(err)
				}
				s1 := d.Volume().Stats()
				if got := s1.SectorsWritten - s0.SectorsWritten; s1.Checkpoints == s0.Checkpoints && (got < c.lo || got > c.hi) {
					t.Fatalf("update %d wrote %d sectors, want %d-%d", i, got, c.lo, c.hi)
				}
			}
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSectorPiecesCommitEarly: unsynced writes over many sector pieces
// leave at most maxDirtyPieces dirty (the rest were committed on the way),
// so that a fill of a nearly full disk does not leave its Sync more log
// entries than the log window holds; everything reads back after a
// reopen. Block pieces keep committing only when asked.
func TestSectorPiecesCommitEarly(t *testing.T) {
	for _, per := range []int{SectorPieceEntries, 0} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			dev := device.NewMem(32 << 20)
			if err := FormatWith(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceEager, per); err != nil {
				t.Fatal(err)
			}
			d, err := Open(keepOpen{dev}, vld.Options{})
			if err != nil {
				t.Fatal(err)
			}
			bs := d.BlockSize()
			n := d.Blocks() * 95 / 100
			c0 := d.Volume().Stats().Commits
			for l := int64(0); l < n; l += 64 {
				data := make([][]byte, min(64, n-l))
				for i := range data {
					data[i] = block(bs, byte(l+int64(i)))
				}
				if err := d.Write(l, data); err != nil {
					t.Fatalf("write at %d of %d: %v", l, n, err)
				}
				d.mu.Lock()
				dirty := len(d.dirty)
				d.mu.Unlock()
				if per != 0 && dirty > maxDirtyPieces {
					t.Fatalf("after the write at %d: %d pieces dirty", l, dirty)
				}
			}
			commits := d.Volume().Stats().Commits - c0
			if (commits > 0) != (per != 0) {
				t.Fatalf("%d commits before the sync", commits)
			}
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(keepOpen{dev}, vld.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			buf := make([]byte, bs)
			for l := int64(0); l < n; l += 37 {
				if err := r.Read(l, buf); err != nil || buf[0] != byte(l) {
					t.Fatalf("block %d: %d, %v", l, buf[0], err)
				}
			}
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
