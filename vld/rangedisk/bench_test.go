package rangedisk

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecision measures one scheduling decision (wall clock) with Q
// range writes queued, by scheduler and range size: each iteration serves
// one request, which decides the next, and queues a replacement. Issue 6
// asks HRS with Q=64 and track-sized ranges for at most 20 µs.
func BenchmarkDecision(b *testing.B) {
	cases := []struct {
		s      Scheduler
		q      int
		blocks int64
	}{
		{HRS, 64, 100}, {HRS, 16, 100}, {HRS, 64, 4096}, {ECS, 64, 100}, {ECS, 16, 100},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%v/Q=%d/range=%d", c.s, c.q, c.blocks), func(b *testing.B) {
			d := newDisk(b, Config{QueueDepth: c.q, Scheduler: c.s})
			rng := rand.New(rand.NewPCG(5, 5))
			submit := func() {
				s := rng.Int64N(d.Layout().NumBlocks() - c.blocks)
				if _, err := d.Submit(Request{Kind: RangeWrite, Blocks: 1, Desc: Span(s, s+c.blocks)}); err != nil {
					b.Fatal(err)
				}
				d.Barrier()
			}
			for d.Outstanding() < c.q {
				submit()
			}
			b.ResetTimer()
			for b.Loop() {
				d.Step()
				submit()
			}
			st := d.Stats()
			b.ReportMetric(float64(st.Estimates)/float64(st.Decisions), "estimates/decision")
		})
	}
}
