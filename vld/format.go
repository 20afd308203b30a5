package vld

import (
	"crypto/rand"
	"fmt"
	"math"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// Format writes a new, empty volume on dev: the superblock, the first
// checkpoint (no pieces), a cleared second slot and the tail record of a
// clean stop with an empty log. The
// volume uses the whole device, up to the capacity of the disk model.
// Blocks of an earlier format are not erased: a new UUID makes them dead.
func Format(dev device.Device, fo FormatOptions) error {
	if fo.Model == nil {
		return fmt.Errorf("format: no disk model: %w", ErrInvalid)
	}
	if err := fo.Model.Validate(); err != nil {
		return fmt.Errorf("format: %w", err)
	}
	bs := fo.BlockSize
	if bs == 0 {
		bs = 4096
	}
	if bs < ondisk.MinBlockSize || bs&(bs-1) != 0 || bs > 1<<20 {
		return fmt.Errorf("format: block size %d (need a power of two >= %d): %w", bs, ondisk.MinBlockSize, ErrInvalid)
	}
	if fo.Placement > placeMax {
		return fmt.Errorf("format: placement %d: %w", fo.Placement, ErrInvalid)
	}
	if len(fo.Kind) > 8 || len(fo.AppData) > MaxAppData {
		return fmt.Errorf("format: kind %q or app data of %d bytes too long: %w", fo.Kind, len(fo.AppData), ErrInvalid)
	}
	nb := dev.Size() / int64(bs)
	if nb < 64 {
		// Checked before the layout: 0 blocks would mean the whole model
		// to NewLayout, and the format then failed writing past the end.
		return fmt.Errorf("format: an image of %d bytes is too small: at least 64 blocks of %d bytes (%d bytes) are needed: %w", dev.Size(), bs, 64*int64(bs), ErrInvalid)
	}
	if c := fo.Model.CapacityBytes(); dev.Size() > c {
		return fmt.Errorf("format: image of %d bytes is larger than disk model %q (%d bytes): use a smaller --size or a larger disk: %w",
			dev.Size(), fo.Model.Name, c, ErrInvalid)
	}
	layout, err := disk.NewLayout(fo.Model, bs, nb)
	if err != nil {
		return fmt.Errorf("format: %w", err)
	}
	nb = layout.NumBlocks()
	if nb < 64 {
		return fmt.Errorf("format: %d blocks of %d bytes is too small (need 64): %w", nb, bs, ErrInvalid)
	}
	mj, err := fo.Model.JSON()
	if err != nil {
		return fmt.Errorf("format: %w", err)
	}
	if len(mj) > ondisk.MaxModelJSON(bs) {
		return fmt.Errorf("format: disk model JSON is %d bytes, at most %d fit the superblock: %w", len(mj), ondisk.MaxModelJSON(bs), ErrInvalid)
	}
	sb := ondisk.Superblock{BlockSize: uint32(bs), NumBlocks: uint64(nb), Kind: fo.Kind, CreatedNs: time.Now().UnixNano(), AppData: fo.AppData, ModelJSON: mj,
		Placement: uint8(fo.Placement), SectorEntries: !fo.BlockEntries}
	if _, err := rand.Read(sb.UUID[:]); err != nil {
		return fmt.Errorf("format: uuid: %w", err)
	}
	blocks := make([]byte, ondisk.FixedBlocks*bs)
	if err := sb.Encode(blocks[:bs]); err != nil {
		return fmt.Errorf("format: %w", err)
	}
	ck := ondisk.Checkpoint{UUID: sb.UUID, Seq: 1, LogSeq: 0, NextSeq: 1, WindowStart: 0,
		WindowTracks: windowTracks(layout.NumTracks(), 0)}
	if err := ck.Encode(blocks[ondisk.CheckpointA*bs : (ondisk.CheckpointA+1)*bs]); err != nil {
		return fmt.Errorf("format: %w", err)
	}
	// Both slots hold every checkpoint (checkpointLocked): a torn write
	// of the first one must find this one whole in the other slot.
	copy(blocks[ondisk.CheckpointB*bs:(ondisk.CheckpointB+1)*bs], blocks[ondisk.CheckpointA*bs:(ondisk.CheckpointA+1)*bs])
	// A new volume has stopped cleanly: its log is empty. Saying so in a
	// tail record spares the first open (mkfs's own) the scan of the log
	// window that an unclean stop needs, which on a 1 TiB image reads
	// 64 GiB (docs/disk-model.md, "Large disks").
	tail := ondisk.Tail{UUID: sb.UUID, CkptSeq: ck.Seq, NextSeq: ck.NextSeq}
	tail.Encode(blocks[ondisk.TailAddr*bs : (ondisk.TailAddr+1)*bs])
	if _, err := dev.WriteAt(blocks, 0); err != nil {
		return fmt.Errorf("format: writing metadata: %w", err)
	}
	if (fo.Placement == PlaceEager || fo.Placement == PlaceRange) && !fo.Homed {
		// In-place homes and LFS segments lay the disk out themselves:
		// only eager volumes take blocks out of it for copies.
		if err := writeSuperCopies(dev, blocks[:bs]); err != nil {
			return fmt.Errorf("format: %w", err)
		}
	}
	if fo.Progress != nil {
		fo.Progress(nb, nb)
	}
	if err := dev.Flush(); err != nil {
		return fmt.Errorf("format: flush: %w", err)
	}
	return nil
}

func floatBits(f float64) uint64 { return math.Float64bits(f) }
