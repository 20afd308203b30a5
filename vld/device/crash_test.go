package device

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// seg is a run of n copies of byte b at off, to describe expected images.
type seg struct {
	off int64
	n   int
	b   byte
}

const crashSize = 8192

// expect builds the image the starting 'I'-filled device has after segs.
func expect(segs ...seg) []byte {
	img := bytes.Repeat([]byte{'I'}, crashSize)
	for _, s := range segs {
		copy(img[s.off:], bytes.Repeat([]byte{s.b}, s.n))
	}
	return img
}

// scripted records this op sequence over an 'I'-filled 8 KiB device:
//
//	0 W a @0 +512     1 W b @512 +512     2 F
//	3 W c @0 +512     4 W d @1024 +1536   5 W e @4096 +512   6 F
//	7 W f @2048 +1024 8 W g @7680 +100
func scripted(t *testing.T) *Crash {
	t.Helper()
	c := NewCrash(MemFrom(expect()))
	w := func(off int64, n int, b byte) { mustWrite(t, c, bytes.Repeat([]byte{b}, n), off) }
	f := func() {
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	w(0, 512, 'a')
	w(512, 512, 'b')
	f()
	w(0, 512, 'c')
	w(1024, 1536, 'd')
	w(4096, 512, 'e')
	f()
	w(2048, 1024, 'f')
	w(7680, 100, 'g')
	return c
}

var (
	segA = seg{0, 512, 'a'}
	segB = seg{512, 512, 'b'}
	segC = seg{0, 512, 'c'}
	segD = seg{1024, 1536, 'd'}
	segE = seg{4096, 512, 'e'}
	segF = seg{2048, 1024, 'f'}
	segG = seg{7680, 100, 'g'}
)

func TestCrashImages(t *testing.T) {
	cases := []struct {
		state string
		want  []byte
	}{
		{"flushes=0", expect()},
		{"flushes=1", expect(segA, segB)},
		{"flushes=1 extra=[4]", expect(segA, segB, segD)},
		{"flushes=1 extra=[5,3]", expect(segC, segB, segE)},
		{"flushes=1 torn=4:1024", expect(segA, segB, seg{1024, 1024, 'd'})},
		{"flushes=1 extra=[3] torn=4:512", expect(segC, segB, seg{1024, 512, 'd'})},
		{"flushes=1 torn=3:0", expect(segA, segB)},
		{"flushes=2", expect(segC, segB, segD, segE)},
		{"flushes=2 extra=[7]", expect(segC, segB, segD, segE, segF)},
		{"flushes=2 extra=[8]", expect(segC, segB, segD, segE, segG)},
		{"flushes=2 extra=[8] torn=7:512", expect(segC, segB, segD, segE, segG, seg{2048, 512, 'f'})},
	}
	c := scripted(t)
	// Twice, forwards then backwards, so the boundary cache is used both
	// moving ahead and rebuilt after moving back.
	rev := slices.Clone(cases)
	slices.Reverse(rev)
	order := append(slices.Clone(cases), rev...)
	for _, tc := range order {
		s, err := ParseState(tc.state)
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.Image(s)
		if err != nil {
			t.Fatalf("%s: %v", tc.state, err)
		}
		if got := m.Bytes(); !bytes.Equal(got, tc.want) {
			t.Fatalf("%s: image differs at byte %d", tc.state, firstDiff(got, tc.want))
		}
	}
}

func TestCrashImageRejects(t *testing.T) {
	cases := []State{
		{Flushes: 3},
		{Flushes: -1},
		{Flushes: 1, Extra: []int{7}},    // a later epoch
		{Flushes: 1, Extra: []int{2}},    // the flush itself
		{Flushes: 0, Extra: []int{3}},    // a later epoch
		{Flushes: 1, Extra: []int{-1}},   // no such op
		{Flushes: 2, Extra: []int{9}},    // past the record
		{Flushes: 1, Extra: []int{3, 3}}, // duplicate
		{Flushes: 1, Extra: []int{4}, Torn: &Torn{Write: 4, Bytes: 512}}, // torn also in extra
		{Flushes: 1, Torn: &Torn{Write: 4, Bytes: 1537}},                 // prefix longer than the write
		{Flushes: 1, Torn: &Torn{Write: 4, Bytes: -1}},
		{Flushes: 1, Torn: &Torn{Write: 6, Bytes: 0}}, // a flush, next epoch
	}
	c := scripted(t)
	for _, s := range cases {
		if _, err := c.Image(s); !errors.Is(err, ErrBadState) {
			t.Errorf("Image(%v) = %v, want ErrBadState", s, err)
		}
	}
}

func TestCrashRecord(t *testing.T) {
	c := scripted(t)
	if got := c.Flushes(); got != 2 {
		t.Fatalf("Flushes = %d", got)
	}
	epochs := map[int][]int{-1: nil, 0: {0, 1}, 1: {3, 4, 5}, 2: {7, 8}, 3: nil}
	for k, want := range epochs {
		if got := c.Epoch(k); !slices.Equal(got, want) {
			t.Errorf("Epoch(%d) = %v, want %v", k, got, want)
		}
	}
	kinds := []OpKind{OpWrite, OpWrite, OpFlush, OpWrite, OpWrite, OpWrite, OpFlush, OpWrite, OpWrite}
	epochOf := []int{0, 0, 0, 1, 1, 1, 1, 2, 2}
	ops := c.Ops()
	if len(ops) != len(kinds) {
		t.Fatalf("%d ops recorded, want %d", len(ops), len(kinds))
	}
	for i, op := range ops {
		if op.Kind != kinds[i] || op.Seq != i || op.Epoch != epochOf[i] {
			t.Errorf("op %d = {%v seq %d epoch %d}, want {%v seq %d epoch %d}", i, op.Kind, op.Seq, op.Epoch, kinds[i], i, epochOf[i])
		}
	}
	if got, want := c.RecordedBytes(), int64(512*3+1536+512+1024+100); got != want {
		t.Errorf("RecordedBytes = %d, want %d", got, want)
	}
	// Writes went through: the device reads as the latest state.
	all := make([]byte, crashSize)
	if _, err := c.ReadAt(all, 0); err != nil || !bytes.Equal(all, expect(segC, segB, segD, segE, segF, segG)) {
		t.Fatalf("reads do not see the writes (err %v)", err)
	}
}

// TestCrashRecordsOnlyWhatLanded: a failed flush or write is not recorded.
func TestCrashRecordsOnlyWhatLanded(t *testing.T) {
	c := NewCrash(NewFaulty(NewMem(4096), Fault{Op: OpFlush | OpWrite, After: 1}))
	mustWrite(t, c, []byte("x"), 0)                     // write #1 passes
	if err := c.Flush(); !errors.Is(err, ErrInjected) { // op #2 fails
		t.Fatalf("Flush = %v, want ErrInjected", err)
	}
	if _, err := c.WriteAt([]byte("y"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteAt([]byte("z"), 4096); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("WriteAt past end = %v", err)
	}
	if c.Flushes() != 0 || len(c.Ops()) != 2 {
		t.Fatalf("recorded %d flushes, %d ops; want 0 and 2", c.Flushes(), len(c.Ops()))
	}
}

func TestCrashStartingImageUnreadable(t *testing.T) {
	m := NewMem(4096)
	m.Close()
	c := NewCrash(m)
	if _, err := c.Image(State{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Image = %v, want the snapshot's ErrClosed", err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
