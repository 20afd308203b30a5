package disk

import "math"

// PhaseSnap is how close, in revolutions, a block's start may be to the
// head's angular position and still count as "now" rather than one
// revolution away. It absorbs floating-point error in frac(t/rotation) so
// that a transfer continuing exactly where the last one ended never loses
// a revolution; 1e-6 of a revolution is a few nanoseconds on any preset.
const PhaseSnap = 1e-6

// BlockPhase is the angular position of block b's first sector as a
// fraction of a revolution in [0,1), including track and cylinder skew.
// Sector 0 of a zone's first track is at phase 0; each next surface adds
// TrackSkew sectors, each next cylinder CylSkew more than the last surface.
func (l *Layout) BlockPhase(b int64) float64 {
	b = l.clampBlock(b)
	z := l.zoneOfBlock(b)
	rel := b - z.firstBlock
	t := rel / int64(z.bpt)
	i := rel % int64(z.bpt)
	s := int64(l.m.Surfaces)
	cyl, surf := t/s, t%s
	sector := cyl*z.cylStep + surf*int64(z.TrackSkew) + i*int64(l.spb)
	return float64(sector%int64(z.SectorsPerTrack)) / float64(z.SectorsPerTrack)
}

// BlockMs is the media transfer time of one block on track t.
func (l *Layout) BlockMs(t int) float64 { return l.zoneOfTrack(l.clampTrack(t)).blockMs }

// RotationMs is the time of one revolution.
func (l *Layout) RotationMs() float64 { return l.rotMs }

// PhaseAt is the platter's angular position at simulated time tMs, as a
// fraction of a revolution in [0,1).
func (l *Layout) PhaseAt(tMs float64) float64 {
	r := tMs / l.rotMs
	return r - math.Floor(r)
}

// rotWaitMs is the wait from time tMs until angular position phase passes
// under the head.
func (l *Layout) rotWaitMs(tMs, phase float64) float64 {
	return l.RotWaitMs(phase - l.PhaseAt(tMs))
}

// RotWaitMs is the wait until a position d revolutions ahead of the head
// (any real d; taken modulo one turn) passes under it, with the snap
// service times use: a start within PhaseSnap of the head is reached now.
// A caller pricing blocks itself (the allocator) must agree with it.
func (l *Layout) RotWaitMs(d float64) float64 {
	d -= math.Floor(d)
	if d < PhaseSnap || d > 1-PhaseSnap {
		return 0
	}
	return d * l.rotMs
}
