package disk

import (
	"fmt"
	"sort"
)

// Layout is the block-granular view of a Model that the VLD uses. Blocks
// are blockSize bytes (a multiple of SectorSize). Each track holds
// floor(spt*512/blockSize) whole blocks; sectors left over at a track's end
// are unused. Blocks are numbered track by track, track t = cyl*Surfaces +
// surf, cylinder 0 first. A Layout is immutable and safe for concurrent use.
type Layout struct {
	m         *Model
	blockSize int
	spb       int // sectors per block
	numBlocks int64
	numTracks int
	zones     []zoneLayout // only zones holding blocks of the layout
	rotMs     float64
}

// zoneLayout is the precomputed block geometry of one zone.
type zoneLayout struct {
	Zone
	bpt        int   // blocks per track
	firstTrack int   // first track of the zone
	firstBlock int64 // first block of the zone
	cylStep    int64 // skew, in sectors, from one cylinder's surface 0 to the next
	blockMs    float64
}

// NewLayout builds the layout of m for blockSize-byte blocks. maxBlocks > 0
// truncates it to a prefix of the disk (an image smaller than the model);
// a larger value, or 0, uses the whole model. It fails if blockSize is not
// a positive multiple of SectorSize, if some zone's track cannot hold one
// block, or if the layout would hold less than one full track.
func NewLayout(m *Model, blockSize int, maxBlocks int64) (*Layout, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if blockSize <= 0 || blockSize%SectorSize != 0 {
		return nil, fmt.Errorf("%w: block size %d is not a positive multiple of %d", ErrBadLayout, blockSize, SectorSize)
	}
	m = m.clone() // the layout's geometry must not change under it
	l := &Layout{m: m, blockSize: blockSize, spb: blockSize / SectorSize, rotMs: m.RotationMs()}
	if err := l.buildZones(maxBlocks); err != nil {
		return nil, err
	}
	if l.numBlocks < int64(l.zones[0].bpt) {
		return nil, fmt.Errorf("%w: %d blocks is less than one track (%d blocks of %d bytes)", ErrBadLayout, l.numBlocks, l.zones[0].bpt, blockSize)
	}
	last := l.zones[len(l.zones)-1]
	l.numTracks = last.firstTrack + int((l.numBlocks-last.firstBlock+int64(last.bpt)-1)/int64(last.bpt))
	return l, nil
}

// buildZones lays the zones out in order until maxBlocks (if > 0) is reached.
func (l *Layout) buildZones(maxBlocks int64) error {
	s := l.m.Surfaces
	track, block := 0, int64(0)
	for i, z := range l.m.Zones {
		bpt := z.SectorsPerTrack / l.spb
		if bpt == 0 {
			return fmt.Errorf("%w: zone %d has %d sectors per track, fewer than one %d-byte block", ErrBadLayout, i, z.SectorsPerTrack, l.blockSize)
		}
		if maxBlocks > 0 && block >= maxBlocks {
			continue // validate every zone, lay out only the prefix
		}
		l.zones = append(l.zones, zoneLayout{
			Zone: z, bpt: bpt, firstTrack: track, firstBlock: block,
			cylStep: int64(s-1)*int64(z.TrackSkew) + int64(z.CylSkew),
			blockMs: l.rotMs * float64(l.spb) / float64(z.SectorsPerTrack),
		})
		tracks := z.Cylinders() * s
		track += tracks
		block += int64(tracks) * int64(bpt)
	}
	l.numBlocks = block
	if maxBlocks > 0 && maxBlocks < block {
		l.numBlocks = maxBlocks
	}
	return nil
}

// Model returns the layout's own copy of the model it was built from;
// callers must not modify it.
func (l *Layout) Model() *Model { return l.m }

// BlockSize is the block size in bytes.
func (l *Layout) BlockSize() int { return l.blockSize }

// NumBlocks is the number of blocks in the layout.
func (l *Layout) NumBlocks() int64 { return l.numBlocks }

// NumTracks counts the tracks holding at least one block of the layout.
func (l *Layout) NumTracks() int { return l.numTracks }

// NumCylinders counts the cylinders holding at least one block.
func (l *Layout) NumCylinders() int { return (l.numTracks-1)/l.m.Surfaces + 1 }

// Contains reports whether blocks [b, b+n) all lie in the layout.
func (l *Layout) Contains(b int64, n int) bool {
	// n against the room left, not b+n against the end: b+n can overflow.
	return b >= 0 && n >= 0 && b <= l.numBlocks && int64(n) <= l.numBlocks-b
}

// clampBlock maps an out-of-range block to the nearest valid one, so that
// a caller's bug costs a wrong time rather than a crash.
func (l *Layout) clampBlock(b int64) int64 {
	return min(max(b, 0), l.numBlocks-1)
}

// clampTrack does the same for tracks.
func (l *Layout) clampTrack(t int) int { return min(max(t, 0), l.numTracks-1) }

// zoneOfBlock returns the layout zone holding block b (clamped).
func (l *Layout) zoneOfBlock(b int64) *zoneLayout {
	i := sort.Search(len(l.zones), func(i int) bool { return l.zones[i].firstBlock > b }) - 1
	return &l.zones[max(i, 0)]
}

// zoneOfTrack returns the layout zone holding track t (clamped).
func (l *Layout) zoneOfTrack(t int) *zoneLayout {
	i := sort.Search(len(l.zones), func(i int) bool { return l.zones[i].firstTrack > t }) - 1
	return &l.zones[max(i, 0)]
}

// TrackOf returns the track holding block b. Out-of-range blocks are
// clamped into the layout (use Contains to check first).
func (l *Layout) TrackOf(b int64) int {
	b = l.clampBlock(b)
	z := l.zoneOfBlock(b)
	return z.firstTrack + int((b-z.firstBlock)/int64(z.bpt))
}

// TrackStart is the first block of track t (clamped into the layout).
func (l *Layout) TrackStart(t int) int64 {
	t = l.clampTrack(t)
	z := l.zoneOfTrack(t)
	return z.firstBlock + int64(t-z.firstTrack)*int64(z.bpt)
}

// TrackBlocks is the number of blocks on track t; the last track of a
// truncated layout may be partial. 0 outside the layout.
func (l *Layout) TrackBlocks(t int) int {
	if t < 0 || t >= l.numTracks {
		return 0
	}
	n := int64(l.zoneOfTrack(t).bpt)
	return int(min(n, l.numBlocks-l.TrackStart(t)))
}

// CylSurf splits a track number into cylinder and surface.
func (l *Layout) CylSurf(t int) (cyl, surf int) { return t / l.m.Surfaces, t % l.m.Surfaces }

// TrackOfCylSurf is the inverse of CylSurf.
func (l *Layout) TrackOfCylSurf(cyl, surf int) int { return cyl*l.m.Surfaces + surf }
