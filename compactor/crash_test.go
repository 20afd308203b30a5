package compactor

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

var seedFlag = flag.Int64("compactor.seed", 0, "replay the crash test with this seed")

// TestCompactionCrash runs a foreground of synchronous and buffered
// updates on a full, fragmented disk with the compactor working in the
// think time, on device.Crash, then recovers every crash state the
// recorder builds: each must hold exactly the contents acknowledged before
// the crash point, or those in flight. Compaction moves blocks but changes
// no contents, so a crash in the middle of it must lose nothing.
func TestCompactionCrash(t *testing.T) {
	seeds := []int64{1, time.Now().UnixNano()}
	if *seedFlag != 0 {
		seeds = []int64{*seedFlag}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay with -compactor.seed %d)", seed, seed)
			crashRun(t, seed)
		})
	}
}

func crashRun(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	base := device.NewMem(4 << 20)
	d, ref := fragmented(t, keepOpen{base}, 4<<20, 0.8, seed)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	crash := device.NewCrash(base)
	d, err := logical.Open(keepOpen{crash}, vld.Options{CheckpointEvery: []int{8, 0}[rng.Intn(2)]})
	if err != nil {
		t.Fatal(err)
	}
	// Commits each step, each source track (the logical disk's default),
	// every 4 moves or every 32: a crash between a deferred move and its
	// commit must find the old copy intact.
	cfg := Config{Start: StartAlways, StepBlocks: 1 + rng.Intn(4), TargetEmpty: 0.3, SettleBlocks: []int{1, 4, 32}[rng.Intn(3)], CommitEachStep: rng.Intn(4) == 0}
	t.Logf("config %+v", cfg)
	c, err := New(Logical(d), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &history{crash: crash}
	h.ack(ref)
	file := int64(len(ref))
	for i := 0; i < 30; i++ {
		// A few blocks at a time, into the holes near the head: near the
		// track being emptied, whose old copies must stay put until the
		// moves are durable.
		n := 1 + rng.Intn(6)
		l := rng.Int63n(file - int64(n))
		data := make([][]byte, n)
		for j := range data {
			data[j] = make([]byte, d.BlockSize())
			rng.Read(data[j][:16])
			ref[l+int64(j)] = data[j]
		}
		if rng.Intn(2) == 0 {
			err = d.Write(l, data) // durable with the next commit, the compactor's included
		} else if err = d.WriteSync(l, data); err == nil {
			h.ack(ref)
		}
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		f := crash.Flushes()
		if _, err := c.Think(rng.Float64() * 30); err != nil {
			t.Fatalf("think %d: %v", i, err)
		}
		if crash.Flushes() > f {
			h.ack(ref) // a compaction commit made the buffered writes durable too
		}
	}
	if s := c.Stats(); s.BlocksMoved == 0 {
		t.Fatalf("the compactor moved nothing: %+v", s)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	h.verify(t, rng, file)
}

// history is what was acknowledged at each flush count.
type history struct {
	crash *device.Crash
	snaps []snap
}

type snap struct {
	flushes int
	state   map[int64][]byte
}

func (h *history) ack(cur map[int64][]byte) {
	s := make(map[int64][]byte, len(cur))
	for k, v := range cur {
		s[k] = v
	}
	h.snaps = append(h.snaps, snap{h.crash.Flushes(), s})
}

// allowed is the last state acknowledged at or before flush count f, and
// the first one after it (in flight at the crash).
func (h *history) allowed(f int) []map[int64][]byte {
	var out []map[int64][]byte
	for _, s := range h.snaps {
		if s.flushes <= f {
			out = []map[int64][]byte{s.state}
		} else {
			return append(out, s.state)
		}
	}
	return out
}

func (h *history) verify(t *testing.T, rng *rand.Rand, file int64) {
	t.Helper()
	states := h.crash.States(rng, 1)
	for _, st := range states {
		img, err := h.crash.Image(st)
		if err != nil {
			t.Fatal(err)
		}
		r, err := logical.Open(img, vld.Options{})
		if err != nil {
			t.Fatalf("state %v: %v", st, err)
		}
		ok := false
		for _, want := range h.allowed(st.Flushes) {
			ok = ok || sameContents(t, r, want, file)
		}
		if !ok {
			t.Fatalf("state %v: recovered contents match no acknowledged or in-flight state", st)
		}
		if err := r.Check(); err != nil {
			t.Fatalf("state %v: %v", st, err)
		}
	}
	t.Logf("%d crash states recovered", len(states))
}

func sameContents(t *testing.T, r *logical.Disk, want map[int64][]byte, file int64) bool {
	buf := make([]byte, r.BlockSize())
	for l := int64(0); l < file; l++ {
		if err := r.Read(l, buf); err != nil {
			t.Fatalf("read %d: %v", l, err)
		}
		if !bytes.Equal(buf, want[l]) {
			return false
		}
	}
	return true
}
