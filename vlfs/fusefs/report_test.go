package fusefs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs"
)

func TestReportOf(t *testing.T) {
	st := vlfs.Stats{
		Ops:    map[string]vlfs.OpStats{"write": {Count: 3, Bytes: 12288}},
		Fsyncs: 2, Commits: 1, GroupedSyncs: 1, Utilization: 0.25,
		UnlockedBatches: 8, SupersededBlocks: 9, UnlockedNodeLoads: 10, UnlockedMetaLoads: 11,
		Vol: vld.Stats{Writes: 4, Flushes: 1, Checkpoints: 5, LogLength: 6, LogEntries: 7,
			WriteSim: vld.Breakdown{OverheadMs: 0.4, TransferMs: 1, LocateMs: 2.6},
			Sim:      vld.Breakdown{OverheadMs: 1, TransferMs: 2, LocateMs: 3, OtherMs: 4},
			Clock:    "simulated", TotalBlocks: 100, FreeBlocks: 75,
			AllocDecisions: 3, AllocBlocks: 4, AllocNs: 1000},
	}
	var flush wallhist.Hist
	flush.Record(130 * time.Microsecond)
	st.Vol.FlushWall = flush.Snapshot()
	r := ReportOf(st)
	// A mount's server adds its compactor's counters (Options.Compactor).
	r.Compactor = compactorReport(&compactor.Stats{NoHoles: 2, Stuck: "no hole left"})
	if r.Wall.DeviceFlush.Count != 1 || r.Wall.Commit.Count != 0 {
		t.Fatalf("wall latency %+v", r.Wall)
	}
	if r.MeanWriteMs != 1 || r.Sim.TotalMs != 10 || r.Ops["write"].Bytes != 12288 || r.Device.Flushes != 1 || r.Source != "image" {
		t.Fatalf("report %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"mean_write_sim_ms":1`, `"locate_ms":3`, `"checkpoints":5`, `"log_length":6`, `"fsyncs":2`, `"utilization":0.25`, `"device_flush":{"count":1`, `"unlocked_batches":8`, `"superseded_blocks":9`, `"unlocked_node_loads":10`, `"unlocked_meta_loads":11`,
		`"alloc_ns_per_block":250`, `"alloc_blocks":4`, `"no_holes":2`, `"stuck":"no hole left"`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"write", "12.0 KiB", "utilisation", "25.0%", "checkpoints", "simulated", "device flush", "batches without the lock 8", "changed while written 9",
		"250 ns CPU per block placed", "stuck", "no hole left"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
