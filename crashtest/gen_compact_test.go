package crashtest

import (
	"flag"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

var compactAll = flag.Bool("crashtest.compact-all", false, "TestCompactWorkloads runs every compaction workload, not a subset")

// TestCompactWorkloads runs compaction workloads through the harness: no
// crash state may break a rule, and every workload's compactor must have
// moved blocks, in every mode (otherwise it tested nothing).
func TestCompactWorkloads(t *testing.T) {
	ws := Compact()
	if len(ws) < 200 {
		t.Fatalf("%d compaction workloads, want one before and one after the persistence point of each core op", len(ws))
	}
	step := 16
	if *compactAll {
		step = 1
	}
	var sub []Workload
	for i := 0; i < len(ws); i += step {
		sub = append(sub, ws[i], ws[i+1]) // both orders of one core op
	}
	start := time.Now()
	cfg := Config{Seed: 1, NoShrink: true}
	res := Run(sub, cfg)
	t.Logf("%d workloads, %d crash states, %d failing, %d blocks moved, %v", res.Workloads, res.CrashStates, res.Failures, res.BlocksMoved, time.Since(start))
	for _, e := range res.Errors {
		t.Error(e)
	}
	for _, r := range res.Reports {
		for _, f := range r.Failures {
			t.Errorf("%v\n%s", f, f.Workload)
		}
	}
	for _, w := range sub[:4] {
		r, err := CheckWorkload(w, Config{Seed: 1, Subsets: 1})
		if err != nil {
			t.Fatal(err)
		}
		if min := int64(len(AllModes())); r.Moved < min {
			t.Errorf("%s: the compactor moved %d blocks over %d modes", w.Name, r.Moved, len(AllModes()))
		}
	}
}

// countDev counts the writes that reach the device.
type countDev struct {
	device.Device
	mu sync.Mutex
	n  int
}

func (d *countDev) WriteAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
	return d.Device.WriteAt(p, off)
}

// TestCompactWorkloadCatchesUnorderedMove: a write of the compactor's that
// reaches the disk only after the flush committing it (a move that frees
// the old copy before the new one is durable comes to the same) must show
// as failing crash states of a compaction workload.
func TestCompactWorkloadCatchesUnorderedMove(t *testing.T) {
	w := Compact()[1] // core op, persistence point, compact
	if w.Ops[len(w.Ops)-1].Kind != "compact" {
		t.Fatalf("%s does not end with compact:\n%s", w.Name, w)
	}
	// Writes before the compactor starts: the workload without it, its
	// unmount included (a few writes more, so the held one is surely
	// inside the compaction).
	noCompact := w
	noCompact.Ops = w.Ops[:len(w.Ops)-1]
	var before *countDev
	count := func(d device.Device) device.Device { before = &countDev{Device: d}; return before }
	if _, err := Record(noCompact, recordOptions{size: DefaultImageSize, mode: "buffered", wrap: count}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Seed: 1, Modes: []string{"buffered"}, NoShrink: true}
	clean, err := CheckWorkload(w, cfg)
	if err != nil || clean.Failing != 0 || clean.Moved == 0 {
		t.Fatalf("without the mutation: %v, %d failing, %d moved: %+v", err, clean.Failing, clean.Moved, clean.Failures)
	}
	caught := 0
	for hold := before.n + 1; hold <= before.n+6; hold++ {
		cfg.wrap = holdWrite(hold)
		res, err := CheckWorkload(w, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failing > 0 {
			caught++
			t.Logf("write %d held: %d of %d states fail; first: %v", hold, res.Failing, res.States, res.Failures[0])
		}
	}
	if caught < 4 {
		t.Errorf("holding writes %d-%d (inside the compaction) one at a time: only %d of 6 noticed", before.n+1, before.n+6, caught)
	}
}
