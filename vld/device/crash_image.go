package device

import (
	"fmt"
	"slices"
)

// Epoch returns the indices (into Ops) of the writes recorded after the given
// number of flushes and before the next flush: the writes that a crash state
// with that many flushes may or may not contain. It is nil when flushes is out
// of range [0, Flushes()].
func (c *Crash) Epoch(flushes int) []int {
	ops, fi := c.view()
	if flushes < 0 || flushes > len(fi) {
		return nil
	}
	lo, hi := epochRange(len(ops), fi, flushes)
	var idx []int
	for i := lo; i < hi; i++ {
		idx = append(idx, i) // only writes lie between two flushes
	}
	return idx
}

// Image validates s and builds the disk contents of that crash state: the
// starting image, every write up to the s.Flushes-th flush, then s.Extra in
// order, then the torn prefix. Errors wrap ErrBadState.
func (c *Crash) Image(s State) (*Mem, error) {
	if c.startErr != nil {
		return nil, c.startErr
	}
	ops, fi := c.view()
	if err := validate(s, ops, fi); err != nil {
		return nil, fmt.Errorf("crash image %v: %w", s, err)
	}
	img, err := c.boundary(ops, fi, s.Flushes)
	if err != nil {
		return nil, err
	}
	for _, i := range s.Extra {
		if err := apply(img, ops[i].Off, ops[i].Data); err != nil {
			return nil, err
		}
	}
	if t := s.Torn; t != nil {
		if err := apply(img, ops[t.Write].Off, ops[t.Write].Data[:t.Bytes]); err != nil {
			return nil, err
		}
	}
	return &Mem{buf: img}, nil
}

// epochRange is the half-open index range of the writes after the k-th flush
// of a record of n ops whose flushes sit at flushIdx.
func epochRange(n int, flushIdx []int, k int) (lo, hi int) {
	lo, hi = boundaryEnd(flushIdx, k), n
	if k < len(flushIdx) {
		hi = flushIdx[k]
	}
	return lo, hi
}

// boundaryEnd is the number of ops up to and including the k-th flush.
func boundaryEnd(flushIdx []int, k int) int {
	if k == 0 {
		return 0
	}
	return flushIdx[k-1] + 1
}

// validate checks that s names a state of this record.
func validate(s State, ops []Op, fi []int) error {
	if s.Flushes < 0 || s.Flushes > len(fi) {
		return fmt.Errorf("flushes=%d, record has %d: %w", s.Flushes, len(fi), ErrBadState)
	}
	lo, hi := epochRange(len(ops), fi, s.Flushes)
	used := make([]bool, hi-lo)
	for _, i := range s.Extra {
		if err := useOnce(used, i, lo, hi, "extra"); err != nil {
			return err
		}
	}
	if t := s.Torn; t != nil {
		if err := useOnce(used, t.Write, lo, hi, "torn"); err != nil {
			return err
		}
		if t.Bytes < 0 || t.Bytes > len(ops[t.Write].Data) {
			return fmt.Errorf("torn prefix %d of a %d-byte write: %w", t.Bytes, len(ops[t.Write].Data), ErrBadState)
		}
	}
	return nil
}

// useOnce marks write i of the epoch [lo, hi) as used, failing if it is
// outside the epoch or already used.
func useOnce(used []bool, i, lo, hi int, what string) error {
	if i < lo || i >= hi {
		return fmt.Errorf("%s write %d is not in the epoch [%d, %d): %w", what, i, lo, hi, ErrBadState)
	}
	if used[i-lo] {
		return fmt.Errorf("%s write %d named twice: %w", what, i, ErrBadState)
	}
	used[i-lo] = true
	return nil
}

// boundary returns a fresh copy of the image at flush boundary k. It keeps
// the last boundary built and moves it forward when asked for a later one, so
// walking the states in order (as States lists them) replays each write once.
func (c *Crash) boundary(ops []Op, fi []int, k int) ([]byte, error) {
	c.cacheMu.Lock()
	defer c.cacheMu.Unlock()
	if c.cache == nil || c.cacheFlushes > k {
		c.cache, c.cacheFlushes = slices.Clone(c.start), 0
	}
	for _, op := range ops[boundaryEnd(fi, c.cacheFlushes):boundaryEnd(fi, k)] {
		if op.Kind != OpWrite {
			continue
		}
		if err := apply(c.cache, op.Off, op.Data); err != nil {
			c.cache = nil // half-applied: do not reuse
			return nil, err
		}
	}
	c.cacheFlushes = k
	return slices.Clone(c.cache), nil
}

// apply copies data into img at off. A recorded write always fit the base,
// whose size is fixed, so failing here means the base changed size.
func apply(img []byte, off int64, data []byte) error {
	if err := checkRange("crash replay", off, len(data), int64(len(img))); err != nil {
		return err
	}
	copy(img[off:], data)
	return nil
}
