package alloc

import (
	"math/bits"
	"sort"
)

// Searches skip the cylinders that cannot take a write without pricing
// them: those with no run of n blocks (runs.go), those with no track
// of the write's window (log entries go only to the log window and its
// extra tracks), and, while filling empty tracks, those with neither an
// empty track nor the active one. On a nearly full disk a log entry's
// search otherwise walked tens of cylinders between the head and the
// window, and a fill search every cylinder up to the nearest empty track.
// Skipping changes no choice: bestInCylinder finds nothing in them.

// nextCandidate is the first cylinder >= from that passes every test, or -1.
func (a *Allocator) nextCandidate(from, n int, w Window, fill bool) int {
	for c := from; ; {
		c = a.nextCyl(c, n)
		if c < 0 {
			return -1
		}
		next := c
		if fill {
			if next = a.nextFillCyl(next); next < 0 {
				return -1
			}
		}
		if next = a.nextWindowCyl(next, w); next < 0 {
			return -1
		}
		if next == c {
			return c
		}
		c = next
	}
}

// nextWindowCyl is the first cylinder >= c holding a track of w (its range
// or an extra track), or -1; c itself when w does not restrict.
func (a *Allocator) nextWindowCyl(c int, w Window) int {
	nt, s := a.l.NumTracks(), a.l.Model().Surfaces
	if w.N == 0 || w.N >= nt {
		return c
	}
	t0 := c * s
	if t0 >= nt {
		return -1
	}
	// The first track of the window's range at or after t0.
	next := -1
	if d := ((t0-w.Start)%nt + nt) % nt; d < w.N {
		next = c
	} else if t := t0 + nt - d; t < nt {
		next = t / s
	}
	if i := sort.SearchInts(w.ExtraCyls, c); i < len(w.ExtraCyls) && (next < 0 || w.ExtraCyls[i] < next) {
		next = w.ExtraCyls[i]
	}
	return next
}

// nextFillCyl is the first cylinder >= c with an empty track or the active
// track, or -1.
func (a *Allocator) nextFillCyl(c int) int {
	next := -1
	if a.active >= 0 {
		if ac := a.activeCyl(); ac >= c {
			next = ac
		}
	}
	ncyl := len(a.cylEmpty)
	for i := c; i < ncyl && (next < 0 || i < next); {
		w := a.emptyCyls[i>>6] >> (uint(i) & 63)
		if w == 0 {
			i = (i | 63) + 1
			continue
		}
		if i += bits.TrailingZeros64(w); i < ncyl && (next < 0 || i < next) {
			next = i
		}
		break
	}
	return next
}

// noteCylEmpty keeps emptyCyls in step with cylEmpty[c].
func (a *Allocator) noteCylEmpty(c int) {
	if a.cylEmpty[c] > 0 {
		a.emptyCyls[c>>6] |= 1 << (uint(c) & 63)
	} else {
		a.emptyCyls[c>>6] &^= 1 << (uint(c) & 63)
	}
}
