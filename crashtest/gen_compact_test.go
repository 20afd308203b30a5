package crashtest

import (
	"flag"
	"sync"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

var compactAll = flag.Bool("crashtest.compact-all", false, "TestCompactWorkloads runs every compaction workload, not a subset")

// TestCompactWorkloads runs compaction workloads through the harness: no
// crash state may break a rule, and in every workload and mode the
// compactor must have moved blocks (otherwise that recording tested no
// compaction).
func TestCompactWorkloads(t *testing.T) {
	ws := Compact()
	if len(ws) < 200 || len(ws)%2 != 0 {
		t.Fatalf("%d compaction workloads, want two (before and after the persistence point) for each core op", len(ws))
	}
	pairs := 8 // every 8th core op, both orders
	if *compactAll {
		pairs = 1
	}
	sub := every(ws, pairs, 2)
	res := runClean(t, sub)
	if res.IdleCompactions != 0 || res.BlocksMoved == 0 {
		t.Errorf("%d of %d recordings moved no block (%d blocks moved in all)", res.IdleCompactions, len(sub)*len(AllModes()), res.BlocksMoved)
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
	k := len(w.Ops) - 1
	if w.Ops[k].Kind != "compact" {
		t.Fatalf("%s does not end with compact:\n%s", w.Name, w)
	}
	// Which device writes the compact op made, counted where holdWrite
	// counts them (a wrapper over the recording device).
	var cd *countDev
	var marks []int
	o := recordOptions{size: DefaultImageSize, mode: "buffered",
		wrap:    func(d device.Device) device.Device { cd = &countDev{Device: d}; return cd },
		afterOp: func(int) { marks = append(marks, cd.n) }}
	if _, err := Record(w, o); err != nil {
		t.Fatal(err)
	}
	first, last := marks[k-1]+1, marks[k]
	const tries = 6
	if last-first+1 < tries {
		t.Fatalf("the compaction made writes %d-%d, fewer than %d", first, last, tries)
	}
	cfg := Config{Seed: 1, Modes: []string{"buffered"}, NoShrink: true}
	clean, err := CheckWorkload(w, cfg)
	if err != nil || clean.Failing != 0 || clean.Moved == 0 {
		t.Fatalf("without the mutation: %v, %d failing, %d moved: %+v", err, clean.Failing, clean.Moved, clean.Failures)
	}
	caught := 0
	for hold := first; hold < first+tries; hold++ {
		cfg.wrap = holdWrite(hold)
		res, err := CheckWorkload(w, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failing > 0 {
			caught++
			t.Logf("write %d held (the compaction wrote %d-%d): %d of %d states fail; first: %v", hold, first, last, res.Failing, res.States, res.Failures[0])
		}
	}
	if caught < 4 {
		t.Errorf("holding writes %d-%d of the compaction one at a time: only %d of %d noticed", first, first+tries-1, caught, tries)
	}
}
