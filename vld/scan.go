package vld

import (
	"math"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// scanChunk is how many bytes the tail scan reads at once.
const scanChunk = 1 << 20

type scanned struct {
	addr Addr
	e    *ondisk.Entry
}

// scanForRoot finds the log's root without a tail record. Every entry
// written since the checkpoint lies in the checkpoint's log window or its
// extra tracks, so only those are read. The newest group found is accepted only if all its
// entries are there and every block it covers has the recorded CRC;
// otherwise it was torn by the crash and the root before it is used.
func (v *Volume) scanForRoot(ck *ondisk.Checkpoint) (ondisk.Ref, uint64, error) {
	found := map[uint64]scanned{}
	var top *scanned
	nt := v.layout.NumTracks()
	w := alloc.Window{Start: int(ck.WindowStart), N: int(ck.WindowTracks)}
	if w.N <= 0 || w.N > nt {
		w.N = nt
	}
	if w.Start < 0 || w.Start >= nt {
		w.Start = 0
	}
	for _, rg := range append(v.windowRanges(w), v.extraRanges(ck.Extra, w)...) {
		if err := v.scanRange(rg[0], rg[1], ck, found, &top); err != nil {
			return ondisk.Ref{}, 0, err
		}
	}
	if top == nil {
		return ondisk.Ref{}, 0, nil
	}
	if v.groupComplete(top.e, found) {
		return ondisk.Ref{Addr: top.addr, Seq: top.e.Seq}, top.e.Seq, nil
	}
	v.recovery.Discarded = true
	root := top.e.PrevRoot
	if root.Seq <= ck.LogSeq {
		root = ondisk.Ref{}
	}
	return root, top.e.Seq, nil
}

// windowRanges turns the tracks of window w's range into at most two
// block ranges.
func (v *Volume) windowRanges(w alloc.Window) [][2]int64 {
	l := v.layout
	nt := l.NumTracks()
	end := w.Start + w.N
	trackEnd := func(t int) int64 { return l.TrackStart(t) + int64(l.TrackBlocks(t)) }
	if end <= nt {
		return [][2]int64{{l.TrackStart(w.Start), trackEnd(end - 1)}}
	}
	return [][2]int64{{l.TrackStart(w.Start), trackEnd(nt - 1)}, {l.TrackStart(0), trackEnd(end - nt - 1)}}
}

// scanRange reads blocks [lo, hi) looking for log entries newer than the
// checkpoint. Then it tells the host to drop the range from its page
// cache: nothing reads those pages again soon (the scan keeps what it
// found), and they were read in 1 MiB requests, so the host holds them in
// large folios, which make every later small write into the log window
// cost in proportion to the folio (docs/peers.md, "Large folios").
func (v *Volume) scanRange(lo, hi int64, ck *ondisk.Checkpoint, found map[uint64]scanned, top **scanned) error {
	defer device.DropCache(v.dev, lo*int64(v.bs), (hi-lo)*int64(v.bs))
	per := int64(scanChunk / v.bs)
	buf := make([]byte, per*int64(v.bs))
	for a := lo; a < hi; a += per {
		n := per
		if a+n > hi {
			n = hi - a
		}
		b := buf[:n*int64(v.bs)]
		if _, err := v.dev.ReadAt(b, a*int64(v.bs)); err != nil {
			return err
		}
		v.recovery.ScannedBlocks += n
		for i := int64(0); i < n; i++ {
			blk := b[i*int64(v.bs) : (i+1)*int64(v.bs)]
			if string(blk[:8]) != ondisk.EntryMagic {
				continue
			}
			e, err := ondisk.DecodeEntry(blk)
			if err != nil || e.UUID != v.sb.UUID || e.Seq <= ck.LogSeq {
				continue
			}
			s := scanned{addr: Addr(a + i), e: e}
			found[e.Seq] = s
			if *top == nil || e.Seq > (*top).e.Seq {
				*top = &s
			}
		}
	}
	return nil
}

// groupComplete reports whether the group of the newest entry e landed
// whole: e is its last entry, all its entries were found, and every block
// it covers holds the recorded contents.
func (v *Volume) groupComplete(e *ondisk.Entry, found map[uint64]scanned) bool {
	if e.Seq != e.GroupSeq+uint64(e.GroupCount)-1 {
		return false
	}
	buf := make([]byte, v.bs)
	for s := e.GroupSeq; s <= e.Seq; s++ {
		x, ok := found[s]
		if !ok || x.e.GroupSeq != e.GroupSeq || x.e.GroupCount != e.GroupCount {
			return false
		}
		for _, c := range x.e.Covers {
			if c.Addr >= v.sb.NumBlocks || v.readRaw(c.Addr, buf) != nil || blockCRC(buf) != c.CRC {
				return false
			}
		}
	}
	return true
}

func float64frombits(b uint64) float64 {
	f := math.Float64frombits(b)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}
