package sched

import (
	"strconv"
	"strings"
	"testing"
)

// TestWriteBatchCutting checks how the write queue is cut: a request that
// fits in a batch is never split, a larger one leaves in batch-sized
// pieces in order, a fixed-address write goes alone, and requests that
// have not arrived wait.
func TestWriteBatchCutting(t *testing.T) {
	cases := []struct {
		name  string
		batch int
		reqs  []int // sizes; negative = fixed-address write
		want  [][]int
	}{
		{"whole fit", 6, []int{2, 3, 1}, [][]int{{2, 3, 1}}},
		{"no split of a fitting request", 6, []int{4, 4, 4}, [][]int{{4}, {4}, {4}}},
		{"large cut", 6, []int{20}, [][]int{{6}, {6}, {6}, {2}}},
		{"large after small", 6, []int{2, 20}, [][]int{{2, 4}, {6}, {6}, {4}}},
		{"fixed alone", 6, []int{2, -3, 2}, [][]int{{2}, {3}, {2}}},
		{"fifo whole", 0, []int{20, 3}, [][]int{{20}, {3}}},
	}
	for _, c := range cases {
		s := New[*Request](Batch{}, c.batch)
		for _, n := range c.reqs {
			s.Add(&Request{Write: true, Fixed: n < 0, Blocks: max(n, -n)})
		}
		var got [][]int
		for len(got) < 20 {
			u, ok := s.Next(0)
			if !ok {
				break
			}
			var sizes []int
			for _, p := range u.Pieces {
				sizes = append(sizes, p.N)
				p.R.Sent += p.N
				p.R.Done = p.R.Left() == 0
			}
			got = append(got, sizes)
			s.Finish()
		}
		if !equalSizes(got, c.want) {
			t.Errorf("%s: batches %v, want %v", c.name, got, c.want)
		}
	}
	s := New[*Request](Batch{}, 4)
	s.Add(&Request{Write: true, Blocks: 2, Arrive: 0})
	s.Add(&Request{Write: true, Blocks: 2, Arrive: 5})
	if u, _ := s.Next(1); len(u.Pieces) != 1 {
		t.Errorf("a write arriving at 5 joined a batch dispatched at 1: %+v", u)
	}
	if _, ok := New[*Request](Batch{}, 4).Next(0); ok {
		t.Error("empty scheduler returned a unit")
	}
}

func equalSizes(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// TestReadsFirst checks the order units leave in: with batching every
// arrived read goes before the next write batch, in arrival order; FIFO
// serves the oldest request whole. Reserved counts the eager writes' blocks
// until Unreserve or Drain.
func TestReadsFirst(t *testing.T) {
	for _, c := range []struct {
		batch int
		want  string
	}{{4, "r3 r2 w0 w1"}, {0, "r3 w0 r2 w1"}} {
		s := New[*Request](Batch{}, c.batch)
		reqs := []*Request{
			{Write: true, Blocks: 3, Arrive: 1},
			{Write: true, Blocks: 1, Arrive: 3, Fixed: true},
			{Arrive: 2},
			{Arrive: 0.5},
		}
		for _, r := range reqs {
			s.Add(r)
		}
		if s.Reserved() != 3 || s.Queued() != 4 || s.Direct() {
			t.Errorf("batch %d: reserved %d, queued %d, direct %v", c.batch, s.Reserved(), s.Queued(), s.Direct())
		}
		if at, ok := s.Earliest(); !ok || at != 0.5 {
			t.Errorf("batch %d: earliest %v %v", c.batch, at, ok)
		}
		var got []string
		for {
			u, ok := s.Next(10)
			if !ok {
				break
			}
			if u.IsRead {
				u.Read.Done = true
				got = append(got, "r"+strconv.Itoa(index(reqs, u.Read)))
			} else {
				for _, p := range u.Pieces {
					p.R.Sent += p.N
					p.R.Done = p.R.Left() == 0
					if !p.R.Fixed {
						s.Unreserve(p.N)
					}
				}
				got = append(got, "w"+strconv.Itoa(index(reqs, u.Pieces[0].R)))
			}
			s.Finish()
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("batch %d: order %s, want %s", c.batch, g, c.want)
		}
		if s.Reserved() != 0 || s.Queued() != 0 || s.Direct() != (c.batch == 0) {
			t.Errorf("batch %d after: reserved %d, queued %d, direct %v", c.batch, s.Reserved(), s.Queued(), s.Direct())
		}
	}
	s := New[*Request](Batch{}, 4)
	s.Add(&Request{Write: true, Blocks: 5})
	s.Add(&Request{})
	if out := s.Drain(); len(out) != 2 || !out[0].Done || !out[1].Done || out[0].Write || s.Reserved() != 0 || s.Queued() != 0 {
		t.Errorf("drain: %+v, reserved %d, queued %d", out, s.Reserved(), s.Queued())
	}
}

func index(rs []*Request, r *Request) int {
	for i := range rs {
		if rs[i] == r {
			return i
		}
	}
	return -1
}
