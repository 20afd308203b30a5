package rangedisk

// pieceHeap is a binary min-heap of pieces by seek bound, ties by position
// in the input (so decisions are deterministic). HRS usually visits only a
// few pieces before pruning the rest, so heapifying (linear) and popping
// those few beats sorting them all.
type pieceHeap []hrsPiece

func (h pieceHeap) less(i, j int) bool {
	if h[i].lb != h[j].lb {
		return h[i].lb < h[j].lb
	}
	return h[i].seq < h[j].seq
}

func (h pieceHeap) down(i int) {
	n := len(h)
	for {
		m := i
		if l := 2*i + 1; l < n && h.less(l, m) {
			m = l
		}
		if r := 2*i + 2; r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// init numbers the pieces in input order and heapifies them.
func (h pieceHeap) init() {
	for i := range h {
		h[i].seq = i
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes and returns the smallest piece; the heap must be non-empty.
func (h *pieceHeap) pop() hrsPiece {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}
