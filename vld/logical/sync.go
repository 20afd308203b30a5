package logical

import (
	"sort"

	"github.com/vlfs/vlfs/vld"
)

// WriteSync writes consecutive logical blocks starting at l and makes them,
// and everything written before, durable: the synchronous write of the
// paper's benchmarks. With eager placement the data and the map's log
// entries go out as one request (Volume.WriteCommit).
func (d *Disk) WriteSync(l int64, data [][]byte) error {
	if err := d.checkRange(l, len(data)); err != nil {
		return err
	}
	d.arrive()
	if d.place == vld.PlaceInPlace {
		if err := d.Write(l, data); err != nil {
			return err
		}
		return d.Sync()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.noteClientLocked(len(data)); err != nil {
		return err
	}
	set := map[uint32]bool{}
	for p := range d.dirty {
		set[p] = true
	}
	for i := range data {
		set[uint32((l+int64(i))/d.per)] = true
	}
	pieces := make([]uint32, 0, len(set))
	for p := range set {
		pieces = append(pieces, p)
	}
	sort.Slice(pieces, func(i, j int) bool { return pieces[i] < pieces[j] })
	var old []uint32
	_, err := d.v.WriteCommit(data, pieces, func(addrs []vld.Addr) map[uint32][]byte {
		for i, a := range addrs {
			if o := d.m[l+int64(i)]; o != 0 {
				old = append(old, o)
			}
			d.noteMapLocked(l+int64(i), d.m[l+int64(i)], uint32(a))
			d.m[l+int64(i)] = uint32(a)
		}
		out := make(map[uint32][]byte, len(pieces))
		for _, p := range pieces {
			out[p] = d.encodePieceLocked(p)
		}
		return out
	})
	if err != nil {
		return err
	}
	d.dirty = map[uint32]bool{}
	d.mv.unsettled = 0
	// The committed map no longer references the old blocks: they are
	// released by the next commit.
	for _, o := range old {
		if err := d.v.Free(vld.Addr(o)); err != nil {
			return err
		}
		d.overw++
	}
	return nil
}
