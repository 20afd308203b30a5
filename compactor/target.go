package compactor

import (
	"time"

	"github.com/vlfs/vlfs/vld"
)

// Block is one live block the target can move: where it is and who owns
// it (for a logical disk, the logical block number). The owner lets the
// target refuse to move a block that was rewritten since it was listed.
type Block struct {
	Addr  vld.Addr
	Owner int64
}

// Target is what the compactor compacts. Every method may be called while
// foreground requests run; the target keeps its own consistency.
type Target interface {
	// Space returns every track's free space (reusing dst) and how many
	// tracks are empty. It costs no simulated time.
	Space(dst []vld.TrackSpace) ([]vld.TrackSpace, int)
	// Live lists the blocks of track t the target can move, and how many
	// other blocks in use the track holds (pinned > 0: it cannot be
	// emptied now). It costs no simulated time.
	Live(t int) (blocks []Block, pinned int, err error)
	// Prefetch reads blocks (of one track) in one request, so that Move
	// need not read them again.
	Prefetch(blocks []Block) error
	// Move relocates the blocks still owned as listed into holes allowed
	// by o, and makes the moves durable before the old copies are freed.
	// It returns how many blocks moved. vld.ErrNoSpace: no hole is left;
	// vld.ErrBusy: foreground requests are waiting.
	Move(blocks []Block, o vld.HoleOpts) (int, error)
	// NowMs is the target's simulated clock.
	NowMs() float64
	// Idle lets ms of simulated time pass with the disk doing nothing.
	Idle(ms float64)
}

// Foreground is implemented by targets that count foreground requests,
// which Run needs to detect idleness on the real clock.
type Foreground interface {
	// Activity is the number of foreground requests arrived so far and
	// the wall-clock time of the last one.
	Activity() (n uint64, last time.Time)
}
