package vld

import (
	"math/rand/v2"
	"testing"

	"github.com/vlfs/vlfs/vld/place"
)

// writeRanged is WriteBlocks with range placement by rp (built on v:
// newRangePolicy) instead of the volume's own policy.
func writeRanged(t testing.TB, v *Volume, rp *place.Range, data [][]byte, near []Addr) []Addr {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	runs, err := rp.Place(v.placeAtLocked(), place.Request{N: len(data), Near: near})
	if err != nil {
		t.Fatal(placeError(err))
	}
	var addrs []Addr
	i := 0
	for _, r := range runs {
		if err := v.writeRunLocked(r, data[i:i+r.N]); err != nil {
			t.Fatal(err)
		}
		for j := range r.N {
			a := Addr(r.Start) + Addr(j)
			addrs = append(addrs, a)
			v.written[a] = blockCRC(data[i+j])
		}
		i += r.N
	}
	return addrs
}

// newRangePolicy is range placement on v, for writeRanged: one per volume,
// which keeps the growth rooms of the chains it placed.
func newRangePolicy(v *Volume) *place.Range { return place.NewRange(v.placeDisk()) }

// seqReadResult is what reading one file back in logical order cost.
type seqReadResult struct {
	requests int64   // read requests (one per contiguous run)
	ms       float64 // simulated time
}

// interleavedFiles writes two files in alternating chunks, each chunk a
// separate write with random think time before it (two applications
// appending and fsyncing), hinted by the file's previous block, then reads
// the first file back in order.
func interleavedFiles(t testing.TB, ranged bool, o Options) seqReadResult {
	v, _ := newTestVolume(t, "hpc2247a", 64<<20, o)
	rng := rand.New(rand.NewPCG(11, 12))
	const chunks, chunk = 32, 4
	files := [2][]Addr{}
	rp := newRangePolicy(v)
	for c := range chunks {
		for f := range files {
			v.Idle(rng.Float64() * v.layout.RotationMs())
			data := make([][]byte, chunk)
			near := make([]Addr, chunk)
			for i := range data {
				data[i] = block(v.BlockSize(), byte(c+f))
				if n := len(files[f]); n > 0 {
					near[i] = files[f][n-1]
				}
			}
			var addrs []Addr
			if ranged {
				addrs = writeRanged(t, v, rp, data, near)
			} else {
				var err error
				if addrs, err = v.WriteBlocks(data, WriteOpts{Near: near}); err != nil {
					t.Fatal(err)
				}
			}
			files[f] = append(files[f], addrs...)
		}
	}
	if err := v.Check(append(files[0], files[1]...)); err != nil {
		t.Fatal(err)
	}
	before := v.Stats()
	bufs := make([][]byte, len(files[0]))
	for i := range bufs {
		bufs[i] = make([]byte, v.BlockSize())
	}
	if err := v.ReadBlocks(files[0], bufs); err != nil {
		t.Fatal(err)
	}
	after := v.Stats()
	return seqReadResult{requests: after.Reads - before.Reads, ms: after.Sim.Total() - before.Sim.Total()}
}

// TestRangePlacementKeepsFilesSequential: with range placement, a file
// appended chunk by chunk between another file's chunks reads back with far
// fewer requests and less simulated time than with eager placement.
func TestRangePlacementKeepsFilesSequential(t *testing.T) {
	eager := interleavedFiles(t, false, Options{})
	ranged := interleavedFiles(t, true, Options{})
	t.Logf("read back 128 blocks: eager %d requests %.2f ms, range %d requests %.2f ms (simulated)", eager.requests, eager.ms, ranged.requests, ranged.ms)
	if ranged.requests*2 > eager.requests || ranged.ms*2 > eager.ms {
		t.Fatalf("range placement: %+v, eager: %+v", ranged, eager)
	}
}
