package compactor

import (
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/logical"
)

// Logical adapts a logical disk (the paper's VLD under an unmodified file
// system) to Target and Foreground. The logical disk must place eagerly.
func Logical(d *logical.Disk) *LogicalTarget { return &LogicalTarget{d: d} }

// LogicalTarget is a logical disk seen by the compactor.
type LogicalTarget struct{ d *logical.Disk }

var (
	_ Target          = (*LogicalTarget)(nil)
	_ Foreground      = (*LogicalTarget)(nil)
	_ Waker           = (*LogicalTarget)(nil)
	_ TrackLister     = (*LogicalTarget)(nil)
	_ Settler         = (*LogicalTarget)(nil)
	_ SettleDefaulter = (*LogicalTarget)(nil)
)

// ListExtraLogTracks implements TrackLister.
func (l *LogicalTarget) ListExtraLogTracks() { l.d.Volume().SetExtraLogTracks(true) }

// Wake implements Waker.
func (l *LogicalTarget) Wake() <-chan struct{} { return l.d.Wake() }

// Space implements Target.
func (l *LogicalTarget) Space(dst []vld.TrackSpace) ([]vld.TrackSpace, int) {
	return l.d.Volume().Space(dst)
}

// EmptyCount implements Target.
func (l *LogicalTarget) EmptyCount() (int, int) {
	v := l.d.Volume()
	return v.EmptyTracks(), v.NumTracks()
}

// Live implements Target.
func (l *LogicalTarget) Live(t int) ([]Block, int, error) {
	ms, pinned, err := l.d.TrackLive(t)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Block, len(ms))
	for i, m := range ms {
		out[i] = Block{Addr: m.Addr, Owner: m.Logical}
	}
	return out, pinned, nil
}

// Prefetch implements Target.
func (l *LogicalTarget) Prefetch(bs []Block) error { return l.d.Prefetch(movables(bs)) }

// Move implements Target.
func (l *LogicalTarget) Move(bs []Block, o vld.HoleOpts) (int, error) {
	return l.d.Relocate(movables(bs), o)
}

// MoveLater implements Settler.
func (l *LogicalTarget) MoveLater(bs []Block, o vld.HoleOpts) (int, error) {
	return l.d.RelocateLater(movables(bs), o)
}

// Settle implements Settler.
func (l *LogicalTarget) Settle() error { return l.d.Settle() }

// DefaultSettleBlocks implements SettleDefaulter: once per source track.
// A logical disk's moves change only map pieces, which the moves of
// several tracks rarely share, so a longer wait saves no writes and makes
// each commit a longer step (docs/compactor.md, "The logical disk as a
// Settler").
func (l *LogicalTarget) DefaultSettleBlocks() int { return 1 }

// NowMs implements Target.
func (l *LogicalTarget) NowMs() float64 { return l.d.Volume().NowMs() }

// Idle implements Target.
func (l *LogicalTarget) Idle(ms float64) { l.d.Volume().Idle(ms) }

// Activity implements Foreground.
func (l *LogicalTarget) Activity() (uint64, time.Time) { return l.d.Activity() }

func movables(bs []Block) []logical.Movable {
	out := make([]logical.Movable, len(bs))
	for i, b := range bs {
		out[i] = logical.Movable{Logical: b.Owner, Addr: b.Addr}
	}
	return out
}
