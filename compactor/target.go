package compactor

import (
	"errors"
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
	// EmptyCount is how many tracks are empty, of how many: the O(1) part
	// of Space, which the real-clock loop checks before it looks at every
	// track.
	EmptyCount() (empty, tracks int)
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

// Settler is implemented by targets whose moves change holders that many
// moves share (a file system: one indirect block points at many data
// blocks). Committing each step rewrites those holders each step; with
// MoveLater the compactor commits once per source track instead.
type Settler interface {
	// MoveLater relocates blocks as Move does but leaves the commit to
	// the target's next one (Settle, a later Move, or any other). The old
	// copies stay in use until that commit is durable, so a crash before
	// it recovers the old pointers and the old copies intact.
	MoveLater(blocks []Block, o vld.HoleOpts) (int, error)
	// Settle commits what MoveLater left pending, if anything.
	Settle() error
}

// SettleDefaulter is implemented by Settler targets whose best
// Config.SettleBlocks differs from DefaultSettleBlocks: a zero
// SettleBlocks takes the target's value.
type SettleDefaulter interface {
	DefaultSettleBlocks() int
}

// TrackLister is implemented by targets whose volume can list, at each
// checkpoint, empty tracks and the compactor's likely next sources as
// extra log tracks (vld.Volume.SetExtraLogTracks): a synchronous write's
// log entries then follow its data onto the tracks the compactor empties,
// wherever they are, instead of costing a second request in the log
// window. The compactor's first step turns it on.
type TrackLister interface {
	ListExtraLogTracks()
}

// Indexer is implemented by targets that must look up who owns some
// blocks before they can list them (a file system whose reverse map is
// built lazily). Live then fails with ErrNotIndexed for a track holding
// such blocks, and the compactor runs Index as a step of its own before
// choosing a source track again.
type Indexer interface {
	// Index does a bounded amount of look-up work (a few metadata reads
	// at most) and reports whether it did any; false means nothing is
	// waiting to be indexed.
	Index() (worked bool, err error)
	// IndexPending reports, cheaply, whether Index may have work: the
	// real-clock loop keeps stepping while it has, even when enough
	// tracks are empty, so look-ups are done in idle time before the
	// compaction that needs them.
	IndexPending() bool
}

// ErrNotIndexed is returned (wrapped) by Live for a track holding blocks
// whose owner the target has yet to look up (Indexer): the track is
// skipped for now, not passed over until its free count changes.
var ErrNotIndexed = errors.New("compactor: owners of some blocks not looked up yet")

// Waker is implemented by Foreground targets that can signal a request's
// arrival, so that Run sleeps while idle instead of polling every
// millisecond.
type Waker interface {
	// Wake receives after foreground requests arrive: at least once after
	// each, coalesced.
	Wake() <-chan struct{}
}

// Foreground is implemented by targets that count foreground requests,
// which Run needs to detect idleness on the real clock.
type Foreground interface {
	// Activity is the number of foreground requests arrived so far and
	// the wall-clock time of the last one.
	Activity() (n uint64, last time.Time)
}
