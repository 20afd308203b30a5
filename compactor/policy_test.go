package compactor

import (
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/vlfs/vlfs/vld"
)

// fakeSpace is a Target that only answers Space.
type fakeSpace struct {
	Target
	sp []vld.TrackSpace
}

func (f fakeSpace) Space(dst []vld.TrackSpace) ([]vld.TrackSpace, int) {
	e := 0
	for _, s := range f.sp {
		if s.Empty() {
			e++
		}
	}
	return append(dst[:0], f.sp...), e
}

func TestCostBenefitOrder(t *testing.T) {
	ts := func(free int32) vld.TrackSpace { return vld.TrackSpace{Free: free, Capacity: 32} }
	win := func(s vld.TrackSpace) vld.TrackSpace { s.InLogWindow = true; return s }
	fill := func(s vld.TrackSpace) vld.TrackSpace { s.Filling = true; return s }
	for _, tc := range []struct {
		name    string
		sp      []vld.TrackSpace
		changed []float64 // at the second look; nil: no change
		blocked map[int]int32
		want    []int
	}{
		{"most free per live block first", []vld.TrackSpace{ts(4), ts(16), ts(8)}, nil, nil, []int{1, 2, 0}},
		{"full and empty tracks are no candidates", []vld.TrackSpace{ts(0), ts(32), ts(3)}, nil, nil, []int{2}},
		{"the track being filled is left alone", []vld.TrackSpace{fill(ts(20)), ts(3)}, nil, nil, []int{1}},
		{"log window first", []vld.TrackSpace{ts(20), win(ts(2)), ts(10)}, nil, nil, []int{1, 0, 2}},
		{"equal: the older first", []vld.TrackSpace{ts(8), ts(8), ts(8)}, []float64{0, 5, 0}, nil, []int{0, 2, 1}},
		{"ratio, not count, with zones", []vld.TrackSpace{{Free: 6, Capacity: 24}, {Free: 7, Capacity: 32}}, nil, nil, []int{0, 1}},
		{"passed over until its space changes", []vld.TrackSpace{ts(9), ts(7)}, nil, map[int]int32{0: 9}, []int{1}},
		{"passed over, then changed", []vld.TrackSpace{ts(9), ts(7)}, nil, map[int]int32{0: 8}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var k tracker
			first := append([]vld.TrackSpace(nil), tc.sp...)
			if tc.changed != nil {
				for i, c := range tc.changed {
					if c != 0 {
						first[i].Free-- // changes by the second look
					}
				}
			}
			k.look(fakeSpace{sp: first}, 0)
			for tr, f := range tc.blocked {
				k.blocked[tr] = f
			}
			k.look(fakeSpace{sp: tc.sp}, 5)
			if got := k.order(CostBenefit, nil); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("order %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRandomOrderCoversCandidates(t *testing.T) {
	var k tracker
	sp := []vld.TrackSpace{{Free: 1, Capacity: 32}, {Free: 32, Capacity: 32}, {Free: 5, Capacity: 32}, {Free: 0, Capacity: 32}, {Free: 30, Capacity: 32}}
	k.look(fakeSpace{sp: sp}, 0)
	rng := rand.New(rand.NewSource(1))
	firsts := map[int]bool{}
	for i := 0; i < 50; i++ {
		got := k.order(Random, rng)
		firsts[got[0]] = true
		sort.Ints(got)
		if !reflect.DeepEqual(got, []int{0, 2, 4}) {
			t.Fatalf("random order over %v, want the candidates 0, 2, 4", got)
		}
	}
	if len(firsts) != 3 {
		t.Fatalf("50 random orders started with only %v", firsts)
	}
}
