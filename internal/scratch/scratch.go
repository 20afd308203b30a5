// Package scratch keeps buffers that one run of a hot path fills and the
// next run reuses, so that a path run thousands of times a second (a small
// commit) allocates none. It owns no lock: the owner's lock guards it.
package scratch

// Keep bounds the buffers a Slices keeps: a run that needs more (a large
// commit, rare) gets fresh ones past it, so one such run does not pin its
// memory for good.
const Keep = 16

// Slices keeps up to Keep slices, by index. The zero value is ready.
type Slices[T any] struct {
	kept [][]T
}

// Get returns slice i, n elements long: the one kept for i when it has that
// length, else a new one (kept if i < Keep). A kept slice holds whatever
// its last user left in it.
func (s *Slices[T]) Get(i, n int) []T {
	if i >= Keep {
		return make([]T, n)
	}
	for len(s.kept) <= i {
		s.kept = append(s.kept, nil)
	}
	if len(s.kept[i]) != n {
		s.kept[i] = make([]T, n)
	}
	return s.kept[i]
}
