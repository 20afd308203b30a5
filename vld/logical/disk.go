package logical

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// Kind is the superblock kind of a logical-disk volume.
const Kind = "disk"

// Disk is the paper's Virtual Log Disk under an unmodified file system:
// a flat space of logical blocks, each mapped to wherever eager
// writing put it. The map (4 bytes per logical block: the physical block
// number, 0 for never written) lives in memory and is persisted as the
// virtual log: piece i holds the entries of logical blocks
// [i*E, (i+1)*E), E = PieceEntries() (pieces.go).
//
// Lock order: Disk.mu before the volume's locks.
type Disk struct {
	mu    sync.Mutex
	v     *vld.Volume
	place vld.Placement
	m     []uint32
	dirty map[uint32]bool
	per   int64
	trims int64    // blocks freed by Trim
	overw int64    // blocks freed because their logical address was rewritten
	mv    mover    // relocation state (move.go)
	act   activity // foreground requests, for idle detection
	cl    cleaner  // segment cleaner, PlaceLFS only (lfs_clean.go)

	// afterEncode, when set (tests only), runs in commitDirtyLocked between
	// encoding the map pieces and committing them, with d.mu held.
	afterEncode func()
}

// appSize is the size of the logical disk's superblock area
// (vld.FormatOptions.AppData):
//
//	offset size field
//	0      8    logical blocks
//	8      1    placement (a Placement: 0 eager, 1 in place, 2 lfs)
//	9      2    map entries per piece (pieces.go; absent or 0 in disks
//	            made before sector pieces: BlockPieceEntries)
const appSize = 9

// Blocks is how many logical blocks a volume of nb physical blocks of size
// bs exports with block pieces (BlocksPer).
func Blocks(nb int64, bs int) int64 {
	return BlocksPer(nb, bs, BlockPieceEntries(bs))
}

// BlocksPer is how many logical blocks a volume of nb physical blocks of
// size bs exports with per map entries a piece: what remains after the
// fixed blocks, the reserve, and room for every map piece to have a
// current and a pinned old version.
func BlocksPer(nb int64, bs, per int) int64 {
	usable := nb - 4 - vld.DefaultReserve(nb) - 64
	n := usable * int64(per) / int64(per+3)
	if n < 0 {
		return 0
	}
	return n
}

// Format formats dev as a logical disk with eager placement.
func Format(dev device.Device, fo vld.FormatOptions) error {
	return FormatPlaced(dev, fo, vld.PlaceEager)
}

// FormatPlaced formats dev as a logical disk with the given placement and
// block pieces.
func FormatPlaced(dev device.Device, fo vld.FormatOptions, place vld.Placement) error {
	return FormatWith(dev, fo, place, 0)
}

// FormatWith formats dev as a logical disk with the given placement and per
// map entries a piece (pieces.go; 0: BlockPieceEntries, SectorPieceEntries
// for sector pieces).
func FormatWith(dev device.Device, fo vld.FormatOptions, place vld.Placement, per int) error {
	bs := fo.BlockSize
	if bs == 0 {
		bs = 4096
	}
	nb := dev.Size() / int64(bs)
	if fo.Model != nil {
		nb = min(nb, fo.Model.CapacityBytes()/int64(bs))
	}
	if per == 0 {
		per = BlockPieceEntries(bs)
	}
	if per < 1 || per > BlockPieceEntries(bs) {
		return fmt.Errorf("format: %d map entries a piece, not in [1, %d]: %w", per, BlockPieceEntries(bs), vld.ErrInvalid)
	}
	n := BlocksPer(nb, bs, per)
	if pieces := (n + int64(per) - 1) / int64(per); pieces > MaxPieces(bs) && per < BlockPieceEntries(bs) {
		return fmt.Errorf("format: %d pieces of %d map entries, more than a checkpoint directory lists (%d): use larger pieces: %w", pieces, per, MaxPieces(bs), vld.ErrInvalid)
	}
	if n <= 0 {
		return fmt.Errorf("format: device too small for a logical disk: %w", vld.ErrInvalid)
	}
	fo.Kind = Kind
	if place == vld.PlaceLFS {
		fo.Placement = vld.PlaceLFS // the volume appends the blocks as a log
	}
	fo.Homed = place == vld.PlaceInPlace
	fo.AppData = binary.LittleEndian.AppendUint16(append(binary.LittleEndian.AppendUint64(nil, uint64(n)), byte(place)), uint16(per))
	return vld.Format(dev, fo)
}

// Open opens a logical disk, recovering its map.
func Open(dev device.Device, o vld.Options) (*Disk, error) {
	v, err := vld.Open(dev, o)
	if err != nil {
		return nil, err
	}
	d, err := newDisk(v)
	if err != nil {
		v.Close()
		return nil, err
	}
	return d, nil
}

func newDisk(v *vld.Volume) (*Disk, error) {
	app := v.AppData()
	if v.Kind() != Kind || len(app) < appSize {
		return nil, fmt.Errorf("open: volume holds %q, not a logical disk: %w", v.Kind(), vld.ErrInvalid)
	}
	n := int64(binary.LittleEndian.Uint64(app))
	if n <= 0 || n > int64(v.NumBlocks()) {
		return nil, fmt.Errorf("open: logical disk of %d blocks on %d: %w", n, v.NumBlocks(), vld.ErrCorrupt)
	}
	per := v.PayloadSize() / 4
	if len(app) >= appSize+2 {
		if p := int(binary.LittleEndian.Uint16(app[appSize:])); p != 0 {
			per = p
		}
	}
	if per > v.PayloadSize()/4 {
		return nil, fmt.Errorf("open: %d map entries a piece, more than a piece holds (%d): %w", per, v.PayloadSize()/4, vld.ErrCorrupt)
	}
	d := &Disk{v: v, m: make([]uint32, n), dirty: map[uint32]bool{}, per: int64(per), place: vld.Placement(app[8])}
	d.act.wake = make(chan struct{}, 1)
	if d.place == vld.PlaceInPlace {
		return d, d.homeAll()
	}
	for p, b := range v.Pieces() {
		base := int64(p) * d.per
		if base >= n {
			return nil, fmt.Errorf("open: map piece %d beyond %d logical blocks: %w", p, n, vld.ErrCorrupt)
		}
		for i := int64(0); i < d.per && base+i < n; i++ {
			a := binary.LittleEndian.Uint32(b[4*i:])
			if a == 0 {
				continue
			}
			if err := v.MarkLive(vld.Addr(a)); err != nil {
				return nil, fmt.Errorf("open: logical block %d: %w", base+i, err)
			}
			d.m[base+i] = a
		}
	}
	if err := v.Start(); err != nil {
		return nil, err
	}
	return d, nil
}

// homeAll maps every logical block to its fixed home.
func (d *Disk) homeAll() error {
	for l := range d.m {
		a := uint32(4 + l)
		if err := d.v.MarkLive(vld.Addr(a)); err != nil {
			return fmt.Errorf("open: in-place home of %d: %w", l, err)
		}
		d.m[l] = a
	}
	return d.v.Start()
}

// PieceEntries is how many map entries each of its pieces holds.
func (d *Disk) PieceEntries() int { return int(d.per) }

// Placement is how this disk places writes.
func (d *Disk) Placement() vld.Placement { return d.place }

// Volume is the volume underneath.
func (d *Disk) Volume() *vld.Volume { return d.v }

// Blocks is the number of logical blocks.
func (d *Disk) Blocks() int64 { return int64(len(d.m)) }

// BlockSize is the size of a logical (and physical) block.
func (d *Disk) BlockSize() int { return d.v.BlockSize() }

// Mapped reports where logical block l is, 0 if it was never written.
func (d *Disk) Mapped(l int64) vld.Addr {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l < 0 || l >= int64(len(d.m)) {
		return 0
	}
	return vld.Addr(d.m[l])
}

func (d *Disk) checkRange(l int64, n int) error {
	if l < 0 || n < 0 || l+int64(n) > int64(len(d.m)) {
		return fmt.Errorf("logical blocks [%d, %d) outside [0, %d): %w", l, l+int64(n), len(d.m), vld.ErrInvalid)
	}
	return nil
}

// Read reads logical block l into buf; a never-written block reads as zeros.
func (d *Disk) Read(l int64, buf []byte) error {
	if err := d.checkRange(l, 1); err != nil {
		return err
	}
	d.arrive()
	// Hold the map while reading: a concurrent write could otherwise remap
	// l, free the old block and, after a commit, let it be reused under us.
	d.mu.Lock()
	defer d.mu.Unlock()
	a := vld.Addr(d.m[l])
	if a == 0 {
		clear(buf)
		return nil
	}
	return d.v.ReadBlock(a, buf)
}

// Write writes consecutive logical blocks starting at l, eagerly, as one
// request kept in order. Not durable until Sync.
func (d *Disk) Write(l int64, data [][]byte) error {
	if err := d.checkRange(l, len(data)); err != nil {
		return err
	}
	d.arrive()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.place == vld.PlaceInPlace {
		return d.v.WriteAt(vld.Addr(d.m[l]), data)
	}
	if err := d.noteClientLocked(len(data)); err != nil {
		return err
	}
	addrs, err := d.v.WriteBlocks(data, vld.WriteOpts{})
	if err != nil {
		return err
	}
	for i, a := range addrs {
		if err := d.remapLocked(l+int64(i), uint32(a)); err != nil {
			return err
		}
	}
	return d.commitEarlyLocked()
}

// remapLocked points logical block l at a (0: unmapped), freeing the old
// physical block: the VLD sees overwrites, so it knows what died.
func (d *Disk) remapLocked(l int64, a uint32) error {
	if old := d.m[l]; old != 0 {
		if err := d.v.Free(vld.Addr(old)); err != nil {
			return err
		}
		if a == 0 {
			d.trims++
		} else {
			d.overw++
		}
	}
	d.noteMapLocked(l, d.m[l], a)
	d.m[l] = a
	d.dirty[uint32(l/d.per)] = true
	return nil
}

// Trim forgets logical blocks [l, l+n): they read as zeros and their
// physical blocks are free at once (after the next Sync), without waiting
// for an overwrite.
func (d *Disk) Trim(l int64, n int) error {
	if err := d.checkRange(l, n); err != nil {
		return err
	}
	d.arrive()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.place == vld.PlaceInPlace {
		d.trims += int64(n) // homes stay allocated: nothing to free
		return nil
	}
	for i := int64(0); i < int64(n); i++ {
		if d.m[l+i] != 0 {
			if err := d.remapLocked(l+i, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// FreedCounts reports blocks freed by Trim and by overwrites since open.
func (d *Disk) FreedCounts() (trimmed, overwritten int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.trims, d.overw
}

// Sync makes every write so far durable: one commit of the changed map
// pieces.
//
// d.mu is held through the commit: were it released after encoding, a
// Relocate could move a block of an encoded piece, commit the new map and
// free the old copy, and this commit would then make the stale piece, which
// names the freed copy, the durable one.
func (d *Disk) Sync() error {
	d.arrive()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.commitDirtyLocked()
}

func (d *Disk) encodePieceLocked(p uint32) []byte {
	b := make([]byte, d.per*4)
	base := int64(p) * d.per
	for i := int64(0); i < d.per && base+i < int64(len(d.m)); i++ {
		binary.LittleEndian.PutUint32(b[4*i:], d.m[base+i])
	}
	return b
}

// Check verifies the volume against the map.
func (d *Disk) Check() error {
	d.mu.Lock()
	if err := d.checkMoverLocked(); err != nil {
		d.mu.Unlock()
		return err
	}
	live := make([]vld.Addr, 0, len(d.m)/2)
	for _, a := range d.m {
		if a != 0 {
			live = append(live, vld.Addr(a))
		}
	}
	d.mu.Unlock()
	return d.v.Check(live)
}

// Close syncs and closes cleanly.
func (d *Disk) Close() error {
	if err := d.Sync(); err != nil {
		d.v.Close()
		return err
	}
	return d.v.Close()
}
