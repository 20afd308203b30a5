package device

import (
	"math/rand"
	"strings"
)

// Sector is the granularity at which States tears a write: a disk writes a
// 512-byte sector entirely or not at all.
const Sector = 512

// States lists crash states of the record, grouped by flush count k = 0, 1,
// ..., Flushes(), in that order. For each k it gives:
//
//   - the flush boundary State{Flushes: k};
//   - min(subsets, 2^n - 1) distinct non-empty subsets of the n writes of the
//     epoch after flush k, each in issue order. When every non-empty subset
//     fits it lists them all (in binary counting order); otherwise it draws
//     them from rng, each write included with probability 1/2;
//   - if n > 0, one torn write: a write w drawn from the epoch, with every
//     epoch write issued before it in Extra, and a prefix of w that ends on a
//     sector boundary strictly inside it, drawn from rng (a 0-byte prefix when
//     w lies within one sector).
//
// So the count is (Flushes()+1) + Σ_k min(subsets, 2^n_k - 1) + #{k : n_k > 0}.
// The same record, rng seed and subsets give the same list. A nil rng means
// rand.New(rand.NewSource(0)).
func (c *Crash) States(rng *rand.Rand, subsets int) []State {
	if rng == nil {
		rng = rand.New(rand.NewSource(0))
	}
	ops, fi := c.view()
	var out []State
	for k := 0; k <= len(fi); k++ {
		out = append(out, State{Flushes: k})
		lo, hi := epochRange(len(ops), fi, k)
		out = append(out, subsetStates(rng, k, lo, hi, subsets)...)
		if hi > lo {
			out = append(out, tornState(rng, ops, k, lo, hi))
		}
	}
	return out
}

// subsetStates returns up to want distinct non-empty subsets of [lo, hi).
func subsetStates(rng *rand.Rand, k, lo, hi, want int) []State {
	n := hi - lo
	if n == 0 || want <= 0 {
		return nil
	}
	if n < 62 && (1<<n)-1 <= want {
		return allSubsets(k, lo, n)
	}
	return randomSubsets(rng, k, lo, n, want)
}

// allSubsets lists every non-empty subset of the n writes from lo.
func allSubsets(k, lo, n int) []State {
	out := make([]State, 0, (1<<n)-1)
	for mask := 1; mask < 1<<n; mask++ {
		var extra []int
		for b := range n {
			if mask&(1<<b) != 0 {
				extra = append(extra, lo+b)
			}
		}
		out = append(out, State{Flushes: k, Extra: extra})
	}
	return out
}

// randomSubsets draws want distinct non-empty subsets; the caller guarantees
// that more than want exist, so the loop ends.
func randomSubsets(rng *rand.Rand, k, lo, n, want int) []State {
	seen := make(map[string]bool, want)
	out := make([]State, 0, want)
	key := make([]byte, n)
	for len(out) < want {
		var extra []int
		for b := range n {
			key[b] = byte(rng.Intn(2))
			if key[b] == 1 {
				extra = append(extra, lo+b)
			}
		}
		if len(extra) == 0 || seen[string(key)] {
			continue
		}
		seen[strings.Clone(string(key))] = true
		out = append(out, State{Flushes: k, Extra: extra})
	}
	return out
}

// tornState tears a random write of the epoch [lo, hi) at a sector boundary.
func tornState(rng *rand.Rand, ops []Op, k, lo, hi int) State {
	w := lo + rng.Intn(hi-lo)
	var extra []int
	for i := lo; i < w; i++ {
		extra = append(extra, i)
	}
	op := ops[w]
	return State{Flushes: k, Extra: extra, Torn: &Torn{Write: w, Bytes: tornPrefix(rng, op.Off, len(op.Data))}}
}

// tornPrefix picks a prefix length of a write of n bytes at off that ends on
// an absolute sector boundary strictly inside the write, or 0 if there is none.
func tornPrefix(rng *rand.Rand, off int64, n int) int {
	first := Sector - int(off%Sector)
	if first >= n {
		return 0
	}
	cuts := (n-1-first)/Sector + 1
	return first + Sector*rng.Intn(cuts)
}
