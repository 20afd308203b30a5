package logical

import (
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// Relocation of logical blocks, for the idle-time compactor (package
// compactor). A move reads the block, writes it into a hole elsewhere
// (PlugHoles), remaps the logical block and commits: the old copy is freed
// only by that commit, once the new map is durable, so a crash during
// compaction loses nothing.

// Movable is a block the logical disk can relocate: logical block Logical,
// now at physical block Addr.
type Movable struct {
	Logical int64
	Addr    vld.Addr
}

// mover is the logical disk's state for relocation, guarded by
// Disk.mu.
type mover struct {
	// rev maps a physical block to its logical block + 1 (0: none). It is
	// built on first use and kept up to date by every remap (noteMapLocked).
	rev []uint32
	// cache holds blocks read ahead (Prefetch) by physical address. An
	// entry is dropped as soon as its logical block is remapped, so a
	// cached copy is always the current contents of a block still mapped.
	cache map[vld.Addr]cachedBlock
	moved int64 // blocks relocated since open
	// unsettled counts blocks RelocateLater moved since the last commit
	// (every commit takes all dirty pieces, so any commit settles them).
	unsettled int
}

type cachedBlock struct {
	logical int64
	data    []byte
}

// activity counts foreground requests, so that an idle-time worker can
// tell when the disk is idle. Atomics only: it is read without d.mu.
type activity struct {
	n    atomic.Uint64 // requests arrived
	last atomic.Int64  // wall-clock time of the last arrival, UnixNano
	wake chan struct{} // signalled (without blocking) at each arrival
}

// noteMapLocked records that logical block l moved from physical old to
// physical a (0: none).
func (d *Disk) noteMapLocked(l int64, old, a uint32) {
	if old != 0 {
		delete(d.mv.cache, vld.Addr(old))
	}
	if d.mv.rev == nil {
		return
	}
	if old != 0 && d.mv.rev[old] == uint32(l+1) {
		d.mv.rev[old] = 0
	}
	if a != 0 {
		d.mv.rev[a] = uint32(l + 1)
	}
}

// arrive counts one foreground request.
func (d *Disk) arrive() {
	d.act.last.Store(time.Now().UnixNano())
	d.act.n.Add(1)
	select {
	case d.act.wake <- struct{}{}:
	default:
	}
}

// Wake receives after foreground requests arrive (at least once after each,
// coalesced), so that an idle-time worker can sleep until one comes.
func (d *Disk) Wake() <-chan struct{} { return d.act.wake }

// Activity reports how many foreground requests (Read, Write, WriteSync,
// Sync, Trim) have arrived since open, and the wall-clock time of the
// last one. Relocations are not counted.
func (d *Disk) Activity() (n uint64, last time.Time) {
	n = d.act.n.Load()
	if ns := d.act.last.Load(); ns != 0 {
		last = time.Unix(0, ns)
	}
	return n, last
}

// MovedCount is how many blocks Relocate moved since open.
func (d *Disk) MovedCount() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mv.moved
}

func (d *Disk) buildRevLocked() {
	if d.mv.rev != nil {
		return
	}
	d.mv.rev = make([]uint32, d.v.NumBlocks())
	for l, a := range d.m {
		if a != 0 {
			d.mv.rev[a] = uint32(l + 1)
		}
	}
}

func (d *Disk) movableLocked() error {
	if d.place == vld.PlaceInPlace {
		return fmt.Errorf("relocate: an update-in-place disk has fixed homes: %w", vld.ErrInvalid)
	}
	return nil
}

// stillAt reports whether logical block m.Logical is still at m.Addr.
func (d *Disk) stillAt(m Movable) bool {
	return m.Logical >= 0 && m.Logical < int64(len(d.m)) && m.Addr != 0 && vld.Addr(d.m[m.Logical]) == m.Addr
}

// TrackLive lists the blocks of track t that Relocate can move, in address
// order, and how many other blocks in use the track holds (the volume's
// own, or freed and not yet released): a track with pinned > 0 cannot be
// emptied now.
func (d *Disk) TrackLive(t int) (live []Movable, pinned int, err error) {
	used, err := d.v.UsedOnTrack(t)
	if err != nil {
		return nil, 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.movableLocked(); err != nil {
		return nil, 0, err
	}
	d.buildRevLocked()
	for _, a := range used {
		if r := d.mv.rev[a]; r != 0 && d.m[r-1] == uint32(a) {
			live = append(live, Movable{Logical: int64(r - 1), Addr: a})
		} else {
			pinned++
		}
	}
	return live, pinned, nil
}

// Prefetch reads the blocks of ms still mapped where ms says, as one
// request spanning them all (they should lie on one track), and keeps
// them for Relocate, which then need not read them. Earlier prefetched
// blocks are forgotten.
func (d *Disk) Prefetch(ms []Movable) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.movableLocked(); err != nil {
		return err
	}
	d.mv.cache = map[vld.Addr]cachedBlock{}
	_, err := d.readMovableLocked(ms)
	return err
}

// readMovableLocked returns the contents of the blocks of ms still in
// place (from the cache, or read as one spanning request), keyed by
// address, caching what it read.
func (d *Disk) readMovableLocked(ms []Movable) (map[vld.Addr][]byte, error) {
	out := make(map[vld.Addr][]byte, len(ms))
	var need []Movable
	for _, m := range ms {
		if !d.stillAt(m) {
			continue
		}
		if c, ok := d.mv.cache[m.Addr]; ok && c.logical == m.Logical {
			out[m.Addr] = c.data
			continue
		}
		need = append(need, m)
	}
	if len(need) == 0 {
		return out, nil
	}
	sort.Slice(need, func(i, j int) bool { return need[i].Addr < need[j].Addr })
	lo, hi := need[0].Addr, need[len(need)-1].Addr
	bufs := make([][]byte, hi-lo+1)
	for i := range bufs {
		bufs[i] = make([]byte, d.v.BlockSize())
	}
	if err := d.v.ReadRun(lo, bufs); err != nil {
		return nil, err
	}
	if d.mv.cache == nil {
		d.mv.cache = map[vld.Addr]cachedBlock{}
	}
	for _, m := range need {
		b := bufs[m.Addr-lo]
		out[m.Addr] = b
		d.mv.cache[m.Addr] = cachedBlock{logical: m.Logical, data: b}
	}
	return out, nil
}

// Relocate moves the blocks of ms that are still mapped where ms says:
// it reads them (unless prefetched), writes them into holes (PlugHoles
// with o), remaps them and commits, together with any map change not yet
// synced. It returns how many blocks moved; blocks overwritten or trimmed
// since they were listed are skipped. On return the moves are durable and
// the old copies free; on a crash before that, the old map and the old
// copies recover intact.
func (d *Disk) Relocate(ms []Movable, o vld.HoleOpts) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, err := d.relocateLocked(ms, o)
	if err != nil || (n == 0 && d.mv.unsettled == 0) {
		return n, err
	}
	return n, d.settleLocked()
}

// RelocateLater is Relocate without the commit: the remapped pieces stay
// dirty until the next commit (Settle, a later Relocate, Sync or a
// WriteSync, each of which commits every dirty piece). Until then the
// old copies stay in use (Volume.Free releases them only with a durable
// commit), so a crash recovers the old map and the old copies intact.
// The compactor uses it to commit once per several source tracks
// (compactor.Settler).
func (d *Disk) RelocateLater(ms []Movable, o vld.HoleOpts) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, err := d.relocateLocked(ms, o)
	d.mv.unsettled += n
	return n, err
}

// Settle commits what RelocateLater left, if anything: as Sync, with the
// map pieces' entries kept in holes (SetAvoidEmpty).
func (d *Disk) Settle() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mv.unsettled == 0 {
		return nil
	}
	return d.settleLocked()
}

// settleLocked commits every dirty piece; the entries go into holes where
// they fit, not onto the empty tracks the compactor is making.
func (d *Disk) settleLocked() error {
	d.v.SetAvoidEmpty(true)
	defer d.v.SetAvoidEmpty(false)
	return d.commitDirtyLocked()
}

func (d *Disk) relocateLocked(ms []Movable, o vld.HoleOpts) (int, error) {
	if err := d.movableLocked(); err != nil {
		return 0, err
	}
	d.buildRevLocked()
	data, err := d.readMovableLocked(ms)
	if err != nil {
		return 0, err
	}
	var todo []Movable
	var blocks [][]byte
	for _, m := range ms {
		if b, ok := data[m.Addr]; ok {
			todo = append(todo, m)
			blocks = append(blocks, b)
			delete(data, m.Addr) // a block listed twice moves once
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	addrs, err := d.v.PlugHoles(blocks, o)
	if err != nil {
		return 0, err
	}
	for i, m := range todo {
		d.m[m.Logical] = uint32(addrs[i])
		d.dirty[uint32(m.Logical/d.per)] = true
		d.noteMapLocked(m.Logical, uint32(m.Addr), uint32(addrs[i]))
		// The old copy is released by the commit below, once the new map
		// is durable (or at once if it was never committed).
		if err := d.v.Free(m.Addr); err != nil {
			return i, err
		}
	}
	d.mv.moved += int64(len(todo))
	return len(todo), nil
}

// commitDirtyLocked commits every changed map piece: Sync with d.mu held.
func (d *Disk) commitDirtyLocked() error {
	pieces := make(map[uint32][]byte, len(d.dirty))
	for p := range d.dirty {
		pieces[p] = d.encodePieceLocked(p)
	}
	if d.afterEncode != nil {
		d.afterEncode()
	}
	if err := d.v.Commit(pieces); err != nil {
		return err
	}
	d.dirty = map[uint32]bool{}
	d.mv.unsettled = 0
	return nil
}

// checkMoverLocked verifies the reverse map and the read-ahead cache
// against the map: every mapped block is found by its address, and every
// cached block is still mapped by its logical block.
func (d *Disk) checkMoverLocked() error {
	if d.mv.rev != nil {
		for l, a := range d.m {
			if a != 0 && d.mv.rev[a] != uint32(l+1) {
				return fmt.Errorf("reverse map: logical %d at %d, reverse says %d: %w", l, a, int64(d.mv.rev[a])-1, vld.ErrCorrupt)
			}
		}
	}
	for a, c := range d.mv.cache {
		if vld.Addr(d.m[c.logical]) != a {
			return fmt.Errorf("read-ahead cache: block %d cached for logical %d, now at %d: %w", a, c.logical, d.m[c.logical], vld.ErrCorrupt)
		}
	}
	return nil
}
