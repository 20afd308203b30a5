package disk

// Track is one track's geometry, for callers that price many blocks of one
// track (the allocator's search): computing it once spares the zone lookup
// and the divisions BlockPhase pays per block.
type Track struct {
	Start   int64   // first block
	Blocks  int     // blocks on the track (the last track may be partial)
	BlockMs float64 // media transfer time of one block

	sector0, spb, spt int64 // first block's sector (skew applied), sectors per block and per track
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
	}
}

// Phase is the angular position of the track's i-th block, exactly as
// BlockPhase(Start+i) gives it.
func (tr Track) Phase(i int64) float64 {
	return float64((tr.sector0+i*tr.spb)%tr.spt) / float64(tr.spt)
}
