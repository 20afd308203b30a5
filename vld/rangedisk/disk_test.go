package rangedisk

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSubmitRejectsBadInput(t *testing.T) {
	d := newDisk(t, Config{QueueDepth: 2})
	nb := d.Layout().NumBlocks()
	tests := []struct {
		name string
		r    Request
		want error
	}{
		{"no blocks", Request{Kind: Write, Addr: 0}, ErrBadRequest},
		{"exact past the end", Request{Kind: Write, Addr: nb - 1, Blocks: 2}, ErrTooLarge},
		{"read past the end", Request{Kind: Read, Addr: nb, Blocks: 1}, ErrTooLarge},
		{"empty range", Request{Kind: RangeWrite, Blocks: 1, Desc: Span(5, 5)}, ErrBadRange},
		{"inverted range", Request{Kind: RangeWrite, Blocks: 1, Desc: Span(9, 5)}, ErrBadRange},
		{"out of disk", Request{Kind: RangeWrite, Blocks: 1, Desc: Span(nb-1, nb+1)}, ErrBadRange},
		{"bad alignment", Request{Kind: RangeWrite, Blocks: 1, Align: 6, Desc: Span(0, 100)}, ErrBadAlign},
		{"larger than every range", Request{Kind: RangeWrite, Blocks: 11, Desc: List(Extent{0, 10}, Extent{20, 30})}, ErrTooLarge},
		// Begin+Blocks overflows int64 and must not pass for a fit.
		{"range write of MaxInt blocks", Request{Kind: RangeWrite, Blocks: math.MaxInt, Desc: Span(10, 20)}, ErrTooLarge},
		{"exact write of MaxInt blocks", Request{Kind: Write, Addr: 1, Blocks: math.MaxInt}, ErrTooLarge},
		{"read at a negative address", Request{Kind: Read, Addr: -1, Blocks: 1}, ErrTooLarge},
		{"data length", Request{Kind: Write, Blocks: 2, Data: [][]byte{make([]byte, 512)}}, ErrBadRequest},
		{"data block size", Request{Kind: Write, Blocks: 1, Data: [][]byte{make([]byte, 100)}}, ErrBadRequest},
		{"unknown kind", Request{Kind: 9, Blocks: 1}, ErrBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := d.Submit(tc.r); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if d.Outstanding() != 0 {
				t.Fatalf("a rejected request was queued")
			}
		})
	}
	for range 2 {
		if _, err := d.Submit(Request{Kind: Write, Blocks: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Submit(Request{Kind: Write, Blocks: 1}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third request with Q=2: %v", err)
	}
}

// TestOverlappingRangesNeverCollide: outstanding range writes over the
// same small range land on distinct blocks; once the range is used up,
// and with no barrier, the rest complete with ErrNoTarget.
func TestOverlappingRangesNeverCollide(t *testing.T) {
	for _, sch := range []Scheduler{HRS, ECS} {
		t.Run(sch.String(), func(t *testing.T) {
			d := newDisk(t, Config{QueueDepth: 16, Scheduler: sch})
			for range 16 {
				if _, err := d.Submit(Request{Kind: RangeWrite, Blocks: 2, Desc: Span(1000, 1020)}); err != nil {
					t.Fatal(err)
				}
			}
			used := map[int64]bool{}
			placed, failed := 0, 0
			for _, c := range d.Drain() {
				if c.Err != nil {
					if !errors.Is(c.Err, ErrNoTarget) || c.Access.TotalMs() != 0 {
						t.Fatalf("failed write: %v, %.3f ms", c.Err, c.Access.TotalMs())
					}
					failed++
					continue
				}
				placed++
				for b := c.Addr; b < c.Addr+2; b++ {
					if used[b] || b < 1000 || b >= 1020 {
						t.Fatalf("block %d placed twice or outside the range", b)
					}
					used[b] = true
				}
			}
			if placed < 6 || placed > 10 || placed+failed != 16 {
				t.Fatalf("placed %d, failed %d", placed, failed)
			}
		})
	}
}

// TestBarrierForgets: a placement is remembered while any write before the
// barrier is outstanding, and forgotten after.
func TestBarrierForgets(t *testing.T) {
	d := newDisk(t, Config{QueueDepth: 4})
	one := Request{Kind: RangeWrite, Blocks: 1, Desc: Span(500, 502)}
	mustSubmit(t, d, one)
	mustSubmit(t, d, Request{Kind: Write, Addr: 900000, Blocks: 1}) // a far pre-barrier write, served last
	d.Barrier()
	mustSubmit(t, d, one)
	c1, _ := d.Step()
	if c1.Kind != RangeWrite || d.Reserved() != 2 {
		t.Fatalf("first served %v, reserved %d; want the range write, then both blocks reserved", c1.Kind, d.Reserved())
	}
	c2, _ := d.Step() // the far pre-barrier write is still outstanding
	if c2.Kind != RangeWrite || c2.Addr == c1.Addr {
		t.Fatalf("second range write at %d, first at %d", c2.Addr, c1.Addr)
	}
	d.Drain()
	if d.Reserved() != 1 {
		t.Fatalf("reserved %d after the pre-barrier writes completed; want 1 (the post-barrier write's)", d.Reserved())
	}
	d.Barrier()
	if d.Reserved() != 0 {
		t.Fatalf("reserved %d after a second barrier with nothing outstanding", d.Reserved())
	}
}

func mustSubmit(t *testing.T, d *Disk, r Request) uint64 {
	t.Helper()
	tag, err := d.Submit(r)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// TestRangeWriteDataStaysContiguous: a multi-block range write lands aligned,
// inside its ranges, in order, and reads back.
func TestRangeWriteDataStaysContiguous(t *testing.T) {
	d := newDisk(t, Config{QueueDepth: 1, KeepData: true})
	data := make([][]byte, 4)
	for i := range data {
		data[i] = bytes.Repeat([]byte{byte(i + 1)}, 512)
	}
	ranges := List(Extent{3001, 3007}, Extent{5000, 5100})
	c, err := d.Do(Request{Kind: RangeWrite, Blocks: 4, Align: 4, Desc: ranges, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr%4 != 0 || !inRuns([]Extent{{3001, 3007}, {5000, 5100}}, c.Addr, 4) {
		t.Fatalf("target %d", c.Addr)
	}
	r, err := d.Do(Request{Kind: Read, Addr: c.Addr, Blocks: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if !bytes.Equal(r.Data[i], data[i]) {
			t.Fatalf("block %d read back wrong", i)
		}
	}
}

// TestSPTFPicksNearest: with the head on track 0, a queued write on track 0
// goes before a far one, whatever the submission order.
func TestSPTFPicksNearest(t *testing.T) {
	d := newDisk(t, Config{QueueDepth: 3})
	far := d.Layout().NumBlocks() - 10
	mustSubmit(t, d, Request{Kind: Write, Addr: far, Blocks: 1})
	mustSubmit(t, d, Request{Kind: Write, Addr: 50, Blocks: 1})
	c, _ := d.Step()
	if c.Addr != 50 || c.Estimates != 2 {
		t.Fatalf("served %d first with %d estimates", c.Addr, c.Estimates)
	}
}

// TestHRSAndECSAgree: full-expansion ECS and HRS make equally good
// decisions on the same random workload, and HRS makes far fewer estimates.
func TestHRSAndECSAgree(t *testing.T) {
	run := func(s Scheduler) (float64, int64) {
		d := newDisk(t, Config{QueueDepth: 4, Scheduler: s})
		rng := rand.New(rand.NewPCG(3, 4))
		total := 0.0
		submit := func() {
			b := rng.Int64N(4000)
			mustSubmit(t, d, Request{Kind: RangeWrite, Blocks: 1, Desc: Span(b, b+96)})
			d.Barrier()
		}
		for range 4 {
			submit()
		}
		for range 300 {
			c, _ := d.Step()
			total += c.Access.TotalMs()
			submit()
		}
		return total, d.Stats().Estimates
	}
	h, he := run(HRS)
	e, ee := run(ECS)
	if math.Abs(h-e) > 1e-6*e {
		t.Fatalf("HRS total %.4f ms, ECS %.4f ms", h, e)
	}
	if he*10 > ee {
		t.Fatalf("HRS made %d estimates, ECS %d", he, ee)
	}
}

// TestFewChoicesOnOneTrack is Figure 8 in small: repeated writes to one
// track with one choice wait about a revolution; eight equally spaced
// choices cut that to about an eighth.
func TestFewChoicesOnOneTrack(t *testing.T) {
	mean := func(k int) float64 {
		d := newDisk(t, Config{Scheduler: ECS, ECSTargets: k})
		bpt := int64(d.Layout().TrackBlocks(0))
		sum := 0.0
		for range 50 {
			c, err := d.Do(Request{Kind: RangeWrite, Blocks: 1, Desc: Span(0, bpt)})
			if err != nil {
				t.Fatal(err)
			}
			d.Barrier()
			sum += c.Access.RotationMs
		}
		return sum / 50
	}
	rot := newDisk(t, Config{}).Layout().RotationMs()
	one, eight := mean(1), mean(8)
	if one < 0.8*rot || eight > rot/8 {
		t.Fatalf("rotation wait: 1 choice %.3f ms, 8 choices %.3f ms (revolution %.3f)", one, eight, rot)
	}
}

// TestDeterministic: the same inputs give the same simulated times.
func TestDeterministic(t *testing.T) {
	run := func() float64 {
		d := newDisk(t, Config{QueueDepth: 8})
		rng := rand.New(rand.NewPCG(9, 9))
		for range 200 {
			for d.Outstanding() < 8 {
				b := rng.Int64N(d.Layout().NumBlocks() - 200)
				mustSubmit(t, d, Request{Kind: RangeWrite, Blocks: 1, Desc: Span(b, b+100)})
				d.Barrier()
			}
			d.Step()
		}
		return d.Now()
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("two runs ended at %v and %v", a, b)
	}
}
