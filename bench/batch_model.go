package bench

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/vlfs/vlfs/vld/disk"
)

// BatchLoad is one of Carson and Setia's load combinations: the offered
// read load rho_r = lambda_r * s_r and the offered write load
// rho_w = lambda_w * s (s = the service time of a one-block write), both
// D + k on their model.
type BatchLoad struct {
	Name       string
	RhoR, RhoW float64
}

// BatchLoads are the loads A-D of the paper's Figures 2, 4 and 5.
func BatchLoads() []BatchLoad {
	return []BatchLoad{{"A", 0.6, 0.6}, {"B", 0.6, 0.2}, {"C", 0.2, 0.6}, {"D", 0.2, 0.2}}
}

// hyperCa2 is the squared coefficient of variation of bursty arrivals
// (Figures 3, 4 and 6).
const hyperCa2 = 5.0

// batchDisk is the paper's disk as the model sees it: independent seek
// (a random pair of distinct cylinders, as disk.SeekStats), rotation
// (uniform over a revolution) and k ms per block.
type batchDisk struct {
	in    disk.CStarInputs
	rotMs float64
	seek  []float64 // seek time by distance
}

func newBatchDisk(m *disk.Model, blockSize int) (*batchDisk, error) {
	in, err := disk.CStarFor(m, blockSize)
	if err != nil {
		return nil, err
	}
	d := &batchDisk{in: in, rotMs: m.RotationMs(), seek: make([]float64, m.Cylinders)}
	for i := range d.seek {
		d.seek[i] = m.SeekMs(i)
	}
	return d, nil
}

// serviceMs is one positioning (seek unless skipped, rotation) plus the
// transfer of n blocks.
func (d *batchDisk) serviceMs(rng *rand.Rand, n int, seek bool) float64 {
	s := rng.Float64()*d.rotMs + float64(n)*d.in.KMs
	if seek && len(d.seek) > 1 {
		a := rng.Intn(len(d.seek))
		b := rng.Intn(len(d.seek) - 1)
		if b >= a {
			b++
		}
		s += d.seek[abs(a-b)]
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// meanOneMs is the mean service time of a one-block operation, D + k:
// the s_r of formula (4) and the s that defines rho_w.
func (d *batchDisk) meanOneMs() float64 { return d.in.DMs + d.in.KMs }

// batchModel is formula (4) for one load and update interval.
type batchModel struct {
	d          *batchDisk
	lamR, lamW float64 // per ms
	periodMs   float64 // T
}

func newBatchModel(d *batchDisk, l BatchLoad, periodMs float64) batchModel {
	s := d.meanOneMs()
	return batchModel{d: d, lamR: l.RhoR / s, lamW: l.RhoW / s, periodMs: periodMs}
}

// responseMs is formula (4): the mean read response time with batch size
// c, A = lambda_w T blocks written per interval as floor(A/c) full batches
// and one partial batch of A mod c. util is rho_r + rho_w + rho_p; the
// formula assumes it is below 1 (a stable queue).
func (b batchModel) responseMs(c int) (ms, util float64) {
	in := b.d.in
	sr := in.DMs + in.KMs
	a := b.lamW * b.periodMs
	full := math.Floor(a / float64(c))
	p := a - full*float64(c)
	sw, sp := in.DMs+in.KMs*float64(c), in.DMs+in.KMs*p
	rhoR := b.lamR * sr
	rhoW := full * sw / b.periodMs
	rhoP := 0.0
	if p > 1e-9 {
		rhoP = sp / b.periodMs
	}
	// rho s (1 + C_s^2) with C_s^2 = sigma^2 / s^2 (formula 3).
	term := func(rho, s float64) float64 { return rho * (s*s + in.Sigma2Ms2) / s }
	ms = sr + (term(rhoR, sr)+term(rhoW, sw)+term(rhoP, sp))/(2*(1-rhoR))
	return ms, rhoR + rhoW + rhoP
}

// formulaBest is the batch size in 1..maxBatch with the least formula (4)
// response among those with a steady state (util < 1), or 0 if none has.
func (b batchModel) formulaBest(maxBatch int) int {
	best, bestC := math.Inf(1), 0
	for c := 1; c <= maxBatch; c++ {
		if ms, util := b.responseMs(c); util < 1 && ms < best {
			best, bestC = ms, c
		}
	}
	return bestC
}

// arrivals draws interarrival times (ms): exponential, or a balanced-means
// two-phase hyperexponential with squared coefficient of variation ca2.
type arrivals struct {
	rng      *rand.Rand
	mean     float64
	p1       float64 // hyperexponential: probability of the first phase
	m1, m2   float64 // and the phases' means
	hyperexp bool
}

func newArrivals(rng *rand.Rand, ratePerMs float64, hyper bool) *arrivals {
	a := &arrivals{rng: rng, mean: 1 / ratePerMs, hyperexp: hyper}
	if hyper {
		a.p1 = (1 + math.Sqrt((hyperCa2-1)/(hyperCa2+1))) / 2
		a.m1, a.m2 = a.mean/(2*a.p1), a.mean/(2*(1-a.p1))
	}
	return a
}

func (a *arrivals) next() float64 {
	if !a.hyperexp {
		return a.rng.ExpFloat64() * a.mean
	}
	if a.rng.Float64() < a.p1 {
		return a.rng.ExpFloat64() * a.m1
	}
	return a.rng.ExpFloat64() * a.m2
}

// batchRun is one event-driven simulation of the model at one batch size.
type batchRun struct {
	m      batchModel
	c      int
	v      arrivalVariant
	warm   int // update intervals before reads are counted
	pulses int // update intervals whose reads are counted
	seed   int64
}

// sizeRun is n queued write batches of one size.
type sizeRun struct{ size, n int }

// simulate returns the mean read response time (ms) of reads arriving in
// the counted intervals, and how many there were. Reads and writes arrive
// at the cache; every T the writes of the interval go to the disk queue
// as batches of c blocks (and one partial batch); the disk serves queued
// reads first, in arrival order, then one write batch, and so on.
//
// Each kind of randomness has its own stream seeded independently of c,
// so the runs of one load at different batch sizes share their read
// arrivals, read service times and write arrivals (common random numbers:
// the curves' shape is far less noisy than each point).
func (r batchRun) simulate() (float64, int) {
	streams := make([]*rand.Rand, 4)
	for i := range streams {
		streams[i] = rand.New(rand.NewSource(r.seed*7919 + int64(i)))
	}
	readArr, writeArr := r.arrivals(streams[0], streams[1])
	readSvc, writeSvc := streams[2], streams[3]
	T := r.m.periodMs
	from, end := float64(r.warm)*T, float64(r.warm+r.pulses)*T
	var reads []float64 // arrival times of waiting reads
	var writes []sizeRun
	var sum float64
	var count int
	t, nextR, nextW, pulse := 0.0, readArr.next(), writeArr.next(), T
	afterWrite := false
	for t < end || len(reads) > 0 {
		for nextR <= t && nextR < end {
			reads = append(reads, nextR)
			nextR += readArr.next()
		}
		for pulse <= t && pulse <= end {
			n := 0
			for ; nextW <= pulse; nextW += writeArr.next() {
				n++
			}
			writes = appendBatches(writes, n, r.c)
			pulse += T
		}
		switch {
		case len(reads) > 0:
			a := reads[0]
			reads = reads[1:]
			t += r.m.d.serviceMs(readSvc, 1, true)
			if a >= from {
				sum += t - a
				count++
			}
			afterWrite = false
		case len(writes) > 0:
			w := &writes[0]
			t += r.m.d.serviceMs(writeSvc, w.size, !(r.v.zeroSeek && afterWrite))
			if w.n--; w.n == 0 {
				writes = writes[1:]
			}
			afterWrite = true
		default:
			t = math.Min(nextR, pulse)
		}
	}
	if count == 0 {
		return math.NaN(), 0
	}
	return sum / float64(count), count
}

// arrivals are the run's read and write arrival processes, each bursty
// only if the variant says so (Figure 3 makes only the reads bursty,
// Figure 4 only the writes).
func (r batchRun) arrivals(readRng, writeRng *rand.Rand) (read, write *arrivals) {
	return newArrivals(readRng, r.m.lamR, r.v.hyperReads), newArrivals(writeRng, r.m.lamW, r.v.hyperWrites)
}

// appendBatches queues n blocks as batches of c and one partial batch.
func appendBatches(q []sizeRun, n, c int) []sizeRun {
	if full := n / c; full > 0 {
		q = append(q, sizeRun{c, full})
	}
	if p := n % c; p > 0 {
		q = append(q, sizeRun{p, 1})
	}
	return q
}

// checkLoads rejects load figures that are not in (0, 1) for reads (the
// model needs rho_r < 1) or positive for writes.
func checkLoads(loads []BatchLoad) error {
	for _, l := range loads {
		if !(l.RhoR > 0 && l.RhoR < 1) {
			return fmt.Errorf("load %s: rho_r must be in (0, 1), got %v", l.Name, l.RhoR)
		}
		if !(l.RhoW > 0) || math.IsInf(l.RhoW, 0) {
			return fmt.Errorf("load %s: rho_w must be positive and finite, got %v", l.Name, l.RhoW)
		}
	}
	return nil
}
