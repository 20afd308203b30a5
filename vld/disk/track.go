package disk

// Track is one track's geometry, for callers that price many blocks of one
// track (the allocator's search): computing it once spares the zone lookup
// and the divisions BlockPhase pays per block.
type Track struct {
	Start   int64   // first block
	Blocks  int     // blocks on the track (the last track may be partial)
	BlockMs float64 // media transfer time of one block

	sector0, spb, spt int64 // first block's sector (skew applied), sectors per block and per track
	skew, bpt         int64 // the zone's track skew (sectors) and blocks per full track
}

// Track returns track t's geometry (t clamped into the layout).
func (l *Layout) Track(t int) Track {
	t = l.clampTrack(t)
	z := l.zoneOfTrack(t)
	rel := int64(t - z.firstTrack)
	s := int64(l.m.Surfaces)
	spt := int64(z.SectorsPerTrack)
	start := z.firstBlock + rel*int64(z.bpt)
	return Track{
		Start:   start,
		Blocks:  int(min(int64(z.bpt), l.numBlocks-start)),
		BlockMs: z.blockMs,
		sector0: ((rel/s)*z.cylStep + (rel%s)*int64(z.TrackSkew)) % spt,
		spb:     int64(l.spb),
		spt:     spt,
		skew:    int64(z.TrackSkew),
		bpt:     int64(z.bpt),
	}
}

// Surface is the geometry of the track k surfaces further in the same
// cylinder (k < surfaces minus this track's surface), without a zone
// lookup: zones are whole cylinders. Blocks is the full track's count;
// the caller bounds it by the layout's end.
func (tr Track) Surface(k int) Track {
	g := tr
	g.Start += int64(k) * tr.bpt
	g.Blocks = int(tr.bpt)
	g.sector0 = (tr.sector0 + int64(k)*tr.skew) % tr.spt
	return g
}

// Phase is the angular position of the track's i-th block, exactly as
// BlockPhase(Start+i) gives it.
func (tr Track) Phase(i int64) float64 {
	return float64((tr.sector0+i*tr.spb)%tr.spt) / float64(tr.spt)
}

// Sector is the sector (0 <= s < SectorsPerTrack) where the track's i-th
// block starts, its phase times SectorsPerTrack.
func (tr Track) Sector(i int64) int64 { return (tr.sector0 + i*tr.spb) % tr.spt }

// SectorsPerTrack and SectorsPerBlock give the track's sector geometry.
func (tr Track) SectorsPerTrack() int64 { return tr.spt }
func (tr Track) SectorsPerBlock() int64 { return tr.spb }

// FirstSector is the sector where block 0 starts (the skew).
func (tr Track) FirstSector() int64 { return tr.sector0 }
