package bench

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

func TestTmpBatchNoise(t *testing.T) {
	m, _ := disk.Preset("carson-setia")
	d, _ := newBatchDisk(m, 8192)
	for _, l := range BatchLoads() {
		bm := newBatchModel(d, l, 30000)
		for _, pulses := range []int{200, 2000} {
			var diffs, pd []float64
			t0 := time.Now()
			argmins, pargmins := "", ""
			for seed := int64(1); seed <= 6; seed++ {
				vals := map[int]float64{}
				pv := map[int]float64{}
				best, bestC := 1e9, 0
				pbest, pbestC := 1e9, 0
				for c := 3; c <= 8; c++ {
					var p float64
					r := batchRun{m: bm, c: c, warm: 1, pulses: pulses, seed: seed, pasta: func(x float64) { p = x }}
					vals[c], _ = r.simulate()
					pv[c] = p
					if vals[c] < best {
						best, bestC = vals[c], c
					}
					if p < pbest {
						pbest, pbestC = p, c
					}
				}
				argmins += fmt.Sprint(bestC)
				pargmins += fmt.Sprint(pbestC)
				diffs = append(diffs, vals[7]-vals[5])
				pd = append(pd, pv[7]-pv[5])
			}
			a5, _ := bm.responseMs(5)
			a7, _ := bm.responseMs(7)
			sd := func(diffs []float64) (float64, float64) {
				var s, s2 float64
				for _, x := range diffs {
					s += x
					s2 += x * x
				}
				mu := s / float64(len(diffs))
				return mu, math.Sqrt(s2/float64(len(diffs)) - mu*mu)
			}
			m1, s1 := sd(diffs)
			m2, s2 := sd(pd)
			fmt.Printf("%s pulses %d: R7-R5 model %.4f sim %.4f sd %.4f argmins %s | pasta %.4f sd %.4f argmins %s (%v)\n", l.Name, pulses, a7-a5, m1, s1, argmins, m2, s2, pargmins, time.Since(t0))
		}
	}
}
