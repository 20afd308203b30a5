package place

import "testing"

func TestChainLen(t *testing.T) {
	tests := []struct {
		near []uint64
		rep  []bool
		i    int
		want int
	}{
		{nil, nil, 0, 5},
		{[]uint64{7, 7, 7, 9, 0}, nil, 0, 3},
		{[]uint64{7, 7, 7, 9, 0}, nil, 3, 1},
		{[]uint64{7, 7, 7, 9, 0}, nil, 4, 1},
		{[]uint64{0, 0, 3, 3, 3}, nil, 0, 2},
		{[]uint64{4, 5, 6, 6, 9}, []bool{true, true, true, false, true}, 0, 4},
		{[]uint64{4, 5, 6, 6, 9}, nil, 0, 1},
		{[]uint64{4, 5, 6, 7, 8}, []bool{true, false, true, true, true}, 0, 1},
	}
	for _, tc := range tests {
		if got := chainLen(tc.near, tc.rep, tc.i, 5); got != tc.want {
			t.Errorf("chainLen(%v, %v, %d) = %d, want %d", tc.near, tc.rep, tc.i, got, tc.want)
		}
	}
}
