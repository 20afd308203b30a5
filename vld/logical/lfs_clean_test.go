package logical

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// lfsDisk formats and opens a logical disk on PlaceLFS.
func lfsDisk(t *testing.T, size int64, cfg CleanerConfig) (*Disk, *device.Mem) {
	t.Helper()
	dev := device.NewMem(size)
	if err := FormatPlaced(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceLFS); err != nil {
		t.Fatal(err)
	}
	d, err := Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.SetCleaner(cfg)
	return d, dev
}

// churn writes a file of n blocks, then rounds of k scattered updates
// followed by a Sync, tagging every block with its version; it returns
// the expected first byte of every block.
func churn(t *testing.T, d *Disk, rng *rand.Rand, n int64, rounds, k int) map[int64]byte {
	t.Helper()
	bs := d.BlockSize()
	want := map[int64]byte{}
	for l := int64(0); l < n; l += 32 {
		data := make([][]byte, min(32, n-l))
		for i := range data {
			data[i] = make([]byte, bs)
			data[i][0] = 1
			want[l+int64(i)] = 1
		}
		if err := d.Write(l, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < rounds; r++ {
		ls := make([]int64, k)
		data := make([][]byte, k)
		for i := range ls {
			ls[i] = rng.Int63n(n)
			data[i] = make([]byte, bs)
			data[i][0] = byte(2 + rng.Intn(250))
			want[ls[i]] = data[i][0]
		}
		if err := d.WriteScattered(ls, data); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		if err := d.Sync(); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		if err := d.Check(); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
	}
	return want
}

func checkFirstBytes(t *testing.T, d *Disk, want map[int64]byte) {
	t.Helper()
	buf := make([]byte, d.BlockSize())
	for l, b := range want {
		if err := d.Read(l, buf); err != nil {
			t.Fatal(err)
		}
		if buf[0] != b {
			t.Fatalf("logical %d: first byte %d, want %d", l, buf[0], b)
		}
	}
}

// TestLFSCleanerKeepsLogGoing fills an LFS logical disk to 80 % and
// overwrites it many times over: without the cleaner the log would run out
// of clean segments; with it, it never does, the contents survive, and the
// write cost is above 1 (the cleaner copied live blocks).
func TestLFSCleanerKeepsLogGoing(t *testing.T) {
	for _, p := range []CleanPolicy{CleanCostBenefit, CleanGreedy} {
		t.Run(p.String(), func(t *testing.T) {
			seed := int64(7)
			t.Logf("seed %d", seed)
			d, _ := lfsDisk(t, 16<<20, CleanerConfig{Policy: p})
			n := d.Blocks() * 8 / 10
			want := churn(t, d, rand.New(rand.NewSource(seed)), n, 24, 128)
			st := d.CleanerStats()
			if st.SegmentsCleaned == 0 || st.BlocksMoved == 0 || st.DemandRuns == 0 {
				t.Fatalf("cleaner never ran: %+v", st)
			}
			if wc := st.WriteCost(); wc <= 1 {
				t.Fatalf("write cost %v after cleaning %d segments", wc, st.SegmentsCleaned)
			}
			if clean, _ := d.CleanSegments(); clean == 0 {
				t.Fatalf("no clean segment left: %+v", st)
			}
			if th := d.Volume().LFSStats().Threaded; th > int64(n) {
				t.Errorf("%d blocks threaded outside clean segments", th)
			}
			checkFirstBytes(t, d, want)
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLFSCleanIdle: idle time cleans segments the write path left, and a
// segment in progress past the idle time is reported as a wait.
func TestLFSCleanIdle(t *testing.T) {
	d, _ := lfsDisk(t, 16<<20, CleanerConfig{})
	n := d.Blocks() * 6 / 10
	want := churn(t, d, rand.New(rand.NewSource(3)), n, 10, 128)
	before := d.CleanerStats()
	c0, _ := d.CleanSegments()
	t0 := d.Volume().NowMs()
	wait, err := d.CleanIdle(1000)
	if err != nil {
		t.Fatal(err)
	}
	after := d.CleanerStats()
	c1, _ := d.CleanSegments()
	if after.SegmentsCleaned <= before.SegmentsCleaned || c1 <= c0 || after.IdleRuns != before.IdleRuns+1 {
		t.Fatalf("idle cleaning did nothing: clean %d -> %d, %+v", c0, c1, after)
	}
	if got := d.Volume().NowMs() - t0; got < 1000 || got != 1000+wait {
		t.Fatalf("idle of 1000 ms took %v ms, wait %v", got, wait)
	}
	// A second idle period finds nothing under IdleMaxUtil left to clean.
	if _, err := d.CleanIdle(1000); err != nil {
		t.Fatal(err)
	}
	checkFirstBytes(t, d, want)
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestParseCleanPolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want CleanPolicy
		ok   bool
	}{{"", CleanCostBenefit, true}, {"cost-benefit", CleanCostBenefit, true}, {"greedy", CleanGreedy, true}, {"random", 0, false}} {
		p, err := ParseCleanPolicy(tc.in)
		if (err == nil) != tc.ok || (tc.ok && p != tc.want) {
			t.Errorf("ParseCleanPolicy(%q) = %v, %v", tc.in, p, err)
		}
	}
	if fmt.Sprint(CleanGreedy) != "greedy" || fmt.Sprint(CleanCostBenefit) != "cost-benefit" {
		t.Error("String")
	}
}
