package vld

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// logEntry is a virtual-log entry written since the last checkpoint whose
// block has not been recycled.
type logEntry struct {
	ref   ondisk.Ref
	piece uint32
	ptrs  []ondisk.Ref
}

// pieceLoc is where the current version of a piece is.
type pieceLoc struct {
	ref    ondisk.Ref
	inCkpt bool // named by the durable checkpoint's directory
	// copies: ref.Addr and pair hold piece copies a checkpoint at rest
	// wrote (piece_copies.go), not a log entry. pair is 0 when the second
	// copy was found damaged; the next checkpoint at rest writes two again.
	copies bool
	pair   Addr
}

// blocks are the blocks holding this version.
func (l pieceLoc) blocks() []Addr {
	if l.pair != 0 {
		return []Addr{l.ref.Addr, l.pair}
	}
	return []Addr{l.ref.Addr}
}

// redundant reports whether this version survives one damaged block.
func (l pieceLoc) redundant() bool { return l.copies && l.pair != 0 }

// vlog is the in-memory state of the virtual log: the tree of entries since
// the last checkpoint (Figure 3b of the virtual-log paper) and the current
// location and payload of every piece.
//
// Invariant: every current version written since the checkpoint is
// reachable from root through present entries; every present entry is
// reachable from root (anything else has been recycled).
type vlog struct {
	entries map[uint64]*logEntry // present entries, by sequence number
	root    ondisk.Ref
	cur     map[uint32]pieceLoc // changed through setCur only
	// live is the XOR of ondisk.LiveHash over cur's versions (setCur): the
	// live-set digest each entry carries, kept in O(1) per change.
	live    uint64
	payload map[uint32][]byte
	nextSeq uint64
	// sinceCkpt counts entries written since the checkpoint (the tree may
	// hold far fewer: obsolete entries are recycled).
	sinceCkpt int

	ckpt      ondisk.Checkpoint // the durable checkpoint
	dirBlocks []Addr            // its directory blocks
	// dirList is what each of its directory blocks lists, nil for a block
	// not known sound (one of its copies did not read at open): the next
	// checkpoint keeps a sound block that would list the same, with its
	// copy and sequence (ondisk.CheckpointDirSeqsVersion).
	dirList [][]ondisk.DirEntry
	pinned  []Addr // obsolete versions its directory still names

	// covered holds the blocks the newest logged group covers. Recovery
	// rereads them to decide whether that group landed (scanForRoot), so
	// while it is the newest group none of them may be overwritten, even
	// once freed: a mismatch would discard a durable commit and fall back
	// to a state whose blocks were already reused.
	covered map[Addr]bool

	// extra is ckpt.Extra as a per-track set (nil: none), for logWindow,
	// and extraCyls the cylinders holding them, sorted (for searches that
	// skip cylinders where entries may not go).
	extra     []bool
	extraCyls []int
	// listExtra makes checkpoints list extra log tracks (SetExtraLogTracks).
	listExtra bool

	// Scratch of add's walks, kept from one entry to the next: the tree
	// holds every piece written since the checkpoint (vlfs's log records
	// are distinct pieces, up to 128 of them), and fresh maps per entry
	// were most of a small commit's allocations.
	seen, sub map[uint64]bool
	stack     []ondisk.Ref
}

func newVlog() *vlog {
	return &vlog{entries: map[uint64]*logEntry{}, cur: map[uint32]pieceLoc{}, payload: map[uint32][]byte{}, nextSeq: 1,
		seen: map[uint64]bool{}, sub: map[uint64]bool{}}
}

// setCur makes l the current version of piece p, keeping live.
func (g *vlog) setCur(p uint32, l pieceLoc) {
	if old, ok := g.cur[p]; ok {
		g.live ^= ondisk.LiveHash(p, old.ref.Seq)
	}
	g.live ^= ondisk.LiveHash(p, l.ref.Seq)
	g.cur[p] = l
}

// liveAfter is live once the pieces of order get the consecutive sequence
// numbers from seq on (a group about to be logged).
func (g *vlog) liveAfter(order []uint32, seq uint64) uint64 {
	d := g.live
	for i, p := range order {
		if old, ok := g.cur[p]; ok {
			d ^= ondisk.LiveHash(p, old.ref.Seq)
		}
		d ^= ondisk.LiveHash(p, seq+uint64(i))
	}
	return d
}

// isLive reports whether e is the current version of its piece.
func (g *vlog) isLive(e *logEntry) bool { return g.cur[e.piece].ref == e.ref }

// digest is the number of current pieces and ondisk.PieceDigest of them
// (the tail record's, for a recovery to compare with what it rebuilt).
func (g *vlog) digest() (uint32, uint32) {
	ps := slices.Sorted(maps.Keys(g.cur))
	refs := make([]ondisk.Ref, len(ps))
	for i, p := range ps {
		refs[i] = g.cur[p].ref
	}
	return uint32(len(ps)), ondisk.PieceDigest(ps, refs)
}

// reach marks in seen every present entry reachable from r, not passing
// through the entry with sequence number skip (0: none).
func (g *vlog) reach(r ondisk.Ref, skip uint64, seen map[uint64]bool) {
	stack := append(g.stack[:0], r)
	defer func() { g.stack = stack[:0] }()
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e, ok := g.entries[x.Seq]
		if !ok || e.ref != x || x.Seq == skip || seen[x.Seq] {
			continue
		}
		seen[x.Seq] = true
		stack = append(stack, e.ptrs...)
	}
}

// liveMissing reports whether a live entry reachable from r is not in seen.
// The set it returns is scratch, valid until the next call.
func (g *vlog) liveMissing(r ondisk.Ref, skip uint64, seen map[uint64]bool) (map[uint64]bool, bool) {
	sub := g.sub
	clear(sub)
	g.reach(r, skip, sub)
	for s := range sub {
		if !seen[s] && g.isLive(g.entries[s]) {
			return sub, true
		}
	}
	return sub, false
}

// add records a new entry for piece, written at ref, as the new root. It
// returns the back pointers the entry must carry and the blocks that are
// recycled by it: they may be reused once the entry is durable. Versions
// named by the durable checkpoint are pinned until the next checkpoint.
func (g *vlog) add(piece uint32, ref ondisk.Ref) (ptrs []ondisk.Ref, freed []Addr) {
	old, had := g.cur[piece]
	var obs *logEntry
	if had && old.inCkpt {
		g.pinned = append(g.pinned, old.blocks()...)
	} else if had {
		obs = g.entries[old.ref.Seq]
	}
	g.setCur(piece, pieceLoc{ref: ref})
	skip := uint64(0)
	if obs != nil {
		skip = obs.ref.Seq
	}
	seen := g.seen
	clear(seen)
	if !g.root.IsZero() && g.root.Seq != skip {
		ptrs = append(ptrs, g.root)
		g.reach(g.root, skip, seen)
	}
	if obs != nil {
		// The obsolete entry's children lose their path through it: the new
		// root adopts those that lead to live entries.
		for _, c := range obs.ptrs {
			if seen[c.Seq] {
				continue
			}
			if sub, need := g.liveMissing(c, skip, seen); need {
				ptrs = append(ptrs, c)
				for s := range sub {
					seen[s] = true
				}
			}
		}
		if len(ptrs) > ondisk.MaxPtrs {
			// Too many orphans for one entry: keep the obsolete entry as an
			// interior node until the next checkpoint instead.
			ptrs = []ondisk.Ref{g.root}
		} else {
			delete(g.entries, obs.ref.Seq)
			freed = append(freed, obs.ref.Addr)
		}
	}
	g.entries[ref.Seq] = &logEntry{ref: ref, piece: piece, ptrs: ptrs}
	g.root = ref
	return ptrs, append(freed, g.collect()...)
}

// prune is recovery's counterpart of add's recycling. A running volume
// drops an obsolete entry as soon as the new root reaches what it led to,
// but older entries on disk still point at it, and until its block is
// reused a recovery finds it intact, with the sequence number the pointer
// expects, and would keep it (and its block) until the next checkpoint.
// prune drops each obsolete entry (oldest first) without which every
// current version stays reachable from the root, then whatever became
// unreachable, and returns the blocks freed. Entries whose block is in
// protect (the newest group's, which recovery rereads) stay.
func (g *vlog) prune(protect map[Addr]bool) []Addr {
	if g.root.IsZero() {
		return nil
	}
	var obs []uint64
	for s, e := range g.entries {
		if s != g.root.Seq && !g.isLive(e) && !protect[e.ref.Addr] {
			obs = append(obs, s)
		}
	}
	sort.Slice(obs, func(i, j int) bool { return obs[i] < obs[j] })
	dropped := map[uint64]bool{}
	for _, s := range obs {
		dropped[s] = true
		if !g.liveReachableWithout(dropped) {
			delete(dropped, s)
		}
	}
	var freed []Addr
	for s := range dropped {
		freed = append(freed, g.entries[s].ref.Addr)
		delete(g.entries, s)
	}
	return append(freed, g.collect()...)
}

// liveReachableWithout reports whether every current version written
// since the checkpoint is reachable from the root without passing
// through the entries in skip.
func (g *vlog) liveReachableWithout(skip map[uint64]bool) bool {
	seen := g.seen
	clear(seen)
	stack := append(g.stack[:0], g.root)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e, ok := g.entries[x.Seq]
		if !ok || e.ref != x || skip[x.Seq] || seen[x.Seq] {
			continue
		}
		seen[x.Seq] = true
		stack = append(stack, e.ptrs...)
	}
	g.stack = stack[:0]
	for _, l := range g.cur {
		if !l.inCkpt && !seen[l.ref.Seq] {
			return false
		}
	}
	return true
}

// collect recycles present entries no longer reachable from the root.
func (g *vlog) collect() []Addr {
	seen := g.seen
	clear(seen)
	g.reach(g.root, 0, seen)
	var freed []Addr
	for s, e := range g.entries {
		if !seen[s] {
			freed = append(freed, e.ref.Addr)
			delete(g.entries, s)
		}
	}
	sort.Slice(freed, func(i, j int) bool { return freed[i] < freed[j] })
	return freed
}

// check verifies the tree invariant.
func (g *vlog) check() error {
	seen := map[uint64]bool{}
	if !g.root.IsZero() {
		if _, ok := g.entries[g.root.Seq]; !ok {
			return fmt.Errorf("virtual log: root seq %d is not present: %w", g.root.Seq, ErrCorrupt)
		}
		g.reach(g.root, 0, seen)
	}
	for s, e := range g.entries {
		if !seen[s] {
			return fmt.Errorf("virtual log: entry seq %d at %d unreachable but not recycled: %w", s, e.ref.Addr, ErrCorrupt)
		}
		if len(e.ptrs) > ondisk.MaxPtrs {
			return fmt.Errorf("virtual log: entry seq %d has %d pointers: %w", s, len(e.ptrs), ErrCorrupt)
		}
	}
	for p, l := range g.cur {
		if l.inCkpt {
			continue
		}
		e, ok := g.entries[l.ref.Seq]
		if !ok || e.ref != l.ref || e.piece != p {
			return fmt.Errorf("virtual log: piece %d current version seq %d not in the tree: %w", p, l.ref.Seq, ErrCorrupt)
		}
		if !seen[l.ref.Seq] {
			return fmt.Errorf("virtual log: piece %d current version seq %d unreachable from the root: %w", p, l.ref.Seq, ErrCorrupt)
		}
	}
	return nil
}
