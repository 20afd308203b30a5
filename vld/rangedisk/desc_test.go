package rangedisk

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDescValidation(t *testing.T) {
	const nb = 1000
	tests := []struct {
		name  string
		d     Desc
		n     int
		align int
		want  error
		runs  []Extent
	}{
		{"one range", Span(10, 20), 1, 1, nil, []Extent{{10, 20}}},
		{"merged list", List(Extent{30, 40}, Extent{10, 20}, Extent{15, 31}), 1, 1, nil, []Extent{{10, 40}}},
		{"adjacent merge", List(Extent{10, 20}, Extent{20, 25}), 1, 1, nil, []Extent{{10, 25}}},
		{"empty range", Span(10, 10), 1, 1, ErrBadRange, nil},
		{"inverted range", Span(20, 10), 1, 1, ErrBadRange, nil},
		{"negative start", Span(-1, 10), 1, 1, ErrBadRange, nil},
		{"past the disk", Span(990, 1001), 1, 1, ErrBadRange, nil},
		{"neither form", Desc{}, 1, 1, ErrBadRange, nil},
		{"both forms", Desc{Ranges: []Extent{{1, 2}}, Free: []uint64{1}}, 1, 1, ErrBadRange, nil},
		{"short bitmap", Bitmap(0, 65, []uint64{^uint64(0)}), 1, 1, ErrBadRange, nil},
		{"bitmap nothing free", Bitmap(0, 64, []uint64{0}), 1, 1, ErrBadRange, nil},
		{"bitmap runs", Bitmap(100, 170, []uint64{0b1101 | 1<<63, 0b10}), 1, 1, nil, []Extent{{100, 101}, {102, 104}, {163, 164}, {165, 166}}},
		{"bitmap ignores bits past end", Bitmap(0, 3, []uint64{0b11110}), 1, 1, nil, []Extent{{1, 3}}},
		{"too large", List(Extent{0, 3}, Extent{10, 14}), 5, 1, ErrTooLarge, nil},
		{"fits exactly", List(Extent{0, 3}, Extent{10, 15}), 5, 1, nil, []Extent{{0, 3}, {10, 15}}},
		{"too large by overflow", Span(10, 20), math.MaxInt, 1, ErrTooLarge, nil},
		{"bitmap too large by overflow", Bitmap(10, 13, []uint64{0b111}), math.MaxInt, 1, ErrTooLarge, nil},
		{"alignment leaves no fit", Span(1, 7), 4, 4, ErrTooLarge, nil},
		{"alignment fits", Span(1, 9), 4, 4, nil, []Extent{{1, 9}}},
		{"align 3", Span(0, 9), 1, 3, ErrBadAlign, nil},
		{"align -2", Span(0, 9), 1, -2, ErrBadAlign, nil},
		{"align 0 means 1", Span(0, 9), 1, 0, nil, []Extent{{0, 9}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := checkAlign(tc.align)
			var runs []Extent
			if err == nil {
				runs, err = tc.d.Runs(nb, tc.n, a)
			}
			if !errors.Is(err, tc.want) || (tc.want != nil && err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want == nil && !slices.Equal(runs, tc.runs) {
				t.Fatalf("runs = %v, want %v", runs, tc.runs)
			}
		})
	}
}

// TestBitmapMatchesList: a random bitmap describes the same targets as the
// list of its runs.
func TestBitmapMatchesList(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for iter := range 200 {
		begin := int64(rng.IntN(500))
		n := int64(1 + rng.IntN(300))
		words := make([]uint64, (n+63)/64)
		var want []Extent
		for i := int64(0); i < n; i++ {
			if rng.IntN(3) == 0 {
				continue
			}
			words[i/64] |= 1 << uint(i%64)
			if k := len(want); k > 0 && want[k-1].End == begin+i {
				want[k-1].End++
			} else {
				want = append(want, Extent{begin + i, begin + i + 1})
			}
		}
		got, err := Bitmap(begin, begin+n, words).Runs(1000, 1, 1)
		if len(want) == 0 {
			if !errors.Is(err, ErrBadRange) {
				t.Fatalf("iter %d: empty bitmap gave %v", iter, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("iter %d: runs %v err %v, want %v", iter, got, err, want)
		}
	}
}

func TestExpandTargets(t *testing.T) {
	runs := []Extent{{0, 10}, {20, 30}}
	tests := []struct {
		name    string
		n, a, k int
		want    []int64
	}{
		{"all", 1, 1, 0, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}},
		{"k=1 is the first", 1, 1, 1, []int64{0}},
		{"k=4 equally spaced", 1, 1, 4, []int64{0, 5, 20, 25}},
		{"aligned 4, 3 blocks", 3, 4, 0, []int64{0, 4, 20, 24}},
		{"k above total", 8, 1, 50, []int64{0, 1, 2, 20, 21, 22}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := expandTargets(runs, tc.n, tc.a, tc.k); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
