package vld

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
)

// vecCounter is a memory device that counts requests: a vectored write is
// one request, as on a host file (one pwritev).
type vecCounter struct {
	*device.Mem
	mu      sync.Mutex
	writes  int   // requests
	parts   []int // buffers of each request
	flushes int
}

func (d *vecCounter) WriteAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	d.writes++
	d.parts = append(d.parts, 1)
	d.mu.Unlock()
	return d.Mem.WriteAt(p, off)
}

func (d *vecCounter) WriteVecAt(bufs [][]byte, off int64) (int, error) {
	d.mu.Lock()
	d.writes++
	d.parts = append(d.parts, len(bufs))
	d.mu.Unlock()
	return d.Mem.WriteVecAt(bufs, off)
}

func (d *vecCounter) Flush() error {
	d.mu.Lock()
	d.flushes++
	d.mu.Unlock()
	return d.Mem.Flush()
}

func (d *vecCounter) Close() error { return nil }

func (d *vecCounter) counts() (writes, flushes int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.writes, d.flushes
}

func newGatherVolume(t *testing.T, o Options) (*Volume, *vecCounter) {
	t.Helper()
	dev := &vecCounter{Mem: device.NewMem(16 << 20)}
	if err := Format(dev.Mem, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	return v, dev
}

// gatheredCommit is what vlfs's fsync does: data, then the block pointing
// at it, then the inode block with its piece, the writes gathered. It
// returns every block address it wrote.
func gatheredCommit(t *testing.T, v *Volume, fill byte, old []Addr) []Addr {
	t.Helper()
	bs := v.BlockSize()
	v.Gather()
	for _, a := range old {
		if err := v.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	d, err := v.WriteBlocks([][]byte{block(bs, fill)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	ind, err := v.WriteBlocks([][]byte{block(bs, fill+1)}, WriteOpts{Meta: true})
	if err != nil {
		t.Fatal(err)
	}
	ino, err := v.WriteCommit([][]byte{block(bs, fill+2)}, []uint32{0}, func(addrs []Addr) map[uint32][]byte {
		return map[uint32][]byte{0: encodeOwned(uint32(fill), []owned{{d[0], blockCRC(block(bs, fill))}, {ind[0], blockCRC(block(bs, fill+1))}, {addrs[0], blockCRC(block(bs, fill+2))}})}
	})
	if err != nil {
		t.Fatal(err)
	}
	return []Addr{d[0], ind[0], ino[0]}
}

// TestGatherOneRequest: a gathered commit whose blocks are contiguous goes
// to the device as one request (a vectored write of the three writes) and
// one flush, and the simulated disk is charged exactly the requests the
// device saw. Most commits of a steady stream find room for that.
func TestGatherOneRequest(t *testing.T) {
	v, dev := newGatherVolume(t, Options{Batch: sched.Batch{Mode: sched.BatchAuto}})
	var live []Addr
	single, n := 0, 40
	for i := 0; i < n; i++ {
		w0, f0 := dev.counts()
		s0 := v.Stats()
		live = gatheredCommit(t, v, byte(i), live)
		w1, f1 := dev.counts()
		s1 := v.Stats()
		if f1-f0 != 1 {
			t.Fatalf("commit %d: %d flushes, want 1", i, f1-f0)
		}
		if got := s1.Writes - s0.Writes; got != int64(w1-w0) {
			t.Fatalf("commit %d: simulated disk charged %d writes, device saw %d", i, got, w1-w0)
		}
		if w1-w0 == 1 {
			single++
			if p := dev.parts[len(dev.parts)-1]; p != 3 {
				t.Fatalf("commit %d: one request of %d parts, want 3 (data, pointer block, inode block + entry)", i, p)
			}
		}
		if err := v.Check(live); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d gathered commits were one device request", single, n)
	if single < n*3/4 {
		t.Fatalf("only %d of %d gathered commits were one request", single, n)
	}
}

// TestGatherReadsSeeHeldBackWrites: a read of a block whose write is held
// back returns what was written (the held-back run is issued first), and
// what is written is what the caller passed at the time of the call, even
// if it changes the buffer before the commit.
func TestGatherReadsSeeHeldBackWrites(t *testing.T) {
	for _, read := range []struct {
		name string
		do   func(v *Volume, a Addr, buf []byte) error
	}{
		{"ReadBlock", func(v *Volume, a Addr, buf []byte) error { return v.ReadBlock(a, buf) }},
		{"ReadBlocks", func(v *Volume, a Addr, buf []byte) error { return v.ReadBlocks([]Addr{a}, [][]byte{buf}) }},
		{"ReadRun", func(v *Volume, a Addr, buf []byte) error { return v.ReadRun(a, [][]byte{buf}) }},
	} {
		t.Run(read.name, func(t *testing.T) {
			v, dev := newGatherVolume(t, Options{})
			bs := v.BlockSize()
			w0, _ := dev.counts()
			v.Gather()
			data := block(bs, 7)
			addrs, err := v.WriteBlocks([][]byte{data}, WriteOpts{})
			if err != nil {
				t.Fatal(err)
			}
			if w, _ := dev.counts(); w != w0 {
				t.Fatalf("%d device writes before any read or commit, want the write held back", w-w0)
			}
			copy(data, block(bs, 99)) // the caller reuses its buffer
			got := make([]byte, bs)
			if err := read.do(v, addrs[0], got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, block(bs, 7)) {
				t.Fatal("read of a held-back block returned other data")
			}
			if err := v.Commit(map[uint32][]byte{0: encodeOwned(1, []owned{{addrs[0], blockCRC(block(bs, 7))}})}); err != nil {
				t.Fatal(err)
			}
			if err := v.Check(addrs); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGatherEndWithoutCommit: EndGather issues what was held back and
// stops gathering; later writes go out at once.
func TestGatherEndWithoutCommit(t *testing.T) {
	v, dev := newGatherVolume(t, Options{})
	bs := v.BlockSize()
	w0, _ := dev.counts()
	v.Gather()
	if _, err := v.WriteBlocks([][]byte{block(bs, 1)}, WriteOpts{}); err != nil {
		t.Fatal(err)
	}
	if w, _ := dev.counts(); w != w0 {
		t.Fatalf("%d device writes while gathering, want 0", w-w0)
	}
	if err := v.EndGather(); err != nil {
		t.Fatal(err)
	}
	if w, _ := dev.counts(); w != w0+1 {
		t.Fatalf("%d device writes after EndGather, want 1", w-w0)
	}
	if _, err := v.WriteBlocks([][]byte{block(bs, 2)}, WriteOpts{}); err != nil {
		t.Fatal(err)
	}
	if w, _ := dev.counts(); w != w0+2 {
		t.Fatalf("%d device writes after a write that was not gathered, want 2", w-w0)
	}
}

// TestCommitOfFreesOnlyNeedsNoFlush: a commit that only frees blocks
// writes nothing, so it issues no flush; the freed blocks are reusable at
// once (but for those the newest group covers), and every crash state of
// the run still recovers the last committed state with its blocks intact.
func TestCommitOfFreesOnlyNeedsNoFlush(t *testing.T) {
	base := device.NewMem(8 << 20)
	if err := Format(base, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	crash := device.NewCrash(base)
	v, err := Open(keepOpen{crash}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	bs, ps := v.BlockSize(), v.PayloadSize()
	snaps := []snapshot{{flushes: crash.Flushes(), pieces: map[uint32][]byte{}}}
	old, err := v.WriteBlocks([][]byte{block(bs, 1), block(bs, 2)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(map[uint32][]byte{0: encodeOwned(1, []owned{{old[0], blockCRC(block(bs, 1))}, {old[1], blockCRC(block(bs, 2))}})}); err != nil {
		t.Fatal(err)
	}
	snaps = append(snaps, snapshot{flushes: crash.Flushes(), pieces: v.Pieces()})
	// Piece 0 moves to a new block; the commit after it, which logs the
	// move, makes old[0] and old[1] unneeded (old[1] is freed right away).
	nw, err := v.WriteBlocks([][]byte{block(bs, 3)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Free(old[1]); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(map[uint32][]byte{0: encodeOwned(2, []owned{{nw[0], blockCRC(block(bs, 3))}})}); err != nil {
		t.Fatal(err)
	}
	snaps = append(snaps, snapshot{flushes: crash.Flushes(), pieces: v.Pieces()})
	if err := v.Free(old[0]); err != nil {
		t.Fatal(err)
	}
	f0, free0 := v.Stats().Flushes, v.FreeBlocks()
	if err := v.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if f := v.Stats().Flushes - f0; f != 0 {
		t.Fatalf("a commit of frees only flushed %d times, want 0", f)
	}
	if v.FreeBlocks() != free0+1 {
		t.Fatalf("free blocks %d after the commit, want %d", v.FreeBlocks(), free0+1)
	}
	// Reuse the freed block and crash anywhere: the last commit survives.
	var fill [][]byte
	for range 64 {
		fill = append(fill, block(bs, 9))
	}
	if _, err := v.WriteBlocks(fill, WriteOpts{}); err != nil {
		t.Fatal(err)
	}
	for _, st := range crash.States(rand.New(rand.NewSource(1)), 8) {
		verifyCrashState(t, crash, st, snaps, ps)
	}
}

// TestGatherCrashRecovery runs random gathered commits (several writes,
// then Commit or WriteCommit) on a crash-recording device that the volume
// writes vectors to directly, so each gathered request is recorded as the
// writes that joined it, and recovers every crash state it builds: the
// state recovered is the last acknowledged commit or the one in flight,
// with every block of it intact.
func TestGatherCrashRecovery(t *testing.T) {
	for _, seed := range testSeeds(t) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay: go test ./vld -run TestGatherCrashRecovery -vld.seed %d)", seed, seed)
			runGatherCrash(t, seed, 30)
		})
	}
}

func runGatherCrash(t *testing.T, seed int64, commits int) {
	rng := rand.New(rand.NewSource(seed))
	base := device.NewMem(8 << 20)
	if err := Format(base, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	crash := device.NewCrash(base)
	v, err := Open(crash, Options{CheckpointEvery: []int{8, 0}[rng.Intn(2)], Batch: sched.Batch{Mode: sched.BatchAuto}})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	bs, ps := v.BlockSize(), v.PayloadSize()
	c := &refClient{bs: bs, pieces: map[uint32][]owned{}, dirty: map[uint32][]owned{}}
	snaps := []snapshot{{flushes: crash.Flushes(), pieces: map[uint32][]byte{}}}
	reqs0 := v.Stats().Writes
	for i := 0; i < commits; i++ {
		v.Gather()
		version := uint32(i + 1)
		for w := 1 + rng.Intn(3); w > 0; w-- {
			p := uint32(rng.Intn(6))
			os := append([]owned(nil), c.dirtyOrCommitted(p)...)
			if len(os) > 0 && rng.Intn(2) == 0 {
				j := rng.Intn(len(os))
				if err := v.Free(os[j].addr); err != nil {
					t.Fatal(err)
				}
				os = append(os[:j], os[j+1:]...)
			}
			data := make([][]byte, 1+rng.Intn(3))
			for j := range data {
				data[j] = make([]byte, bs)
				rng.Read(data[j])
			}
			addrs, err := v.WriteBlocks(data, WriteOpts{Meta: rng.Intn(2) == 0})
			if err != nil {
				t.Fatal(err)
			}
			for j, a := range addrs {
				os = append(os, owned{a, blockCRC(data[j])})
			}
			c.dirty[p] = os
		}
		upd := map[uint32][]byte{}
		var order []uint32
		for p, os := range c.dirty {
			upd[p] = encodeOwned(version, os)
			c.pieces[p] = os
			order = append(order, p)
		}
		c.dirty = map[uint32][]owned{}
		if rng.Intn(2) == 0 {
			if err := v.Commit(upd); err != nil {
				t.Fatal(err)
			}
		} else {
			// The last piece's payload also names one block WriteCommit writes.
			extra := make([]byte, bs)
			rng.Read(extra)
			last := order[len(order)-1]
			_, err := v.WriteCommit([][]byte{extra}, order, func(addrs []Addr) map[uint32][]byte {
				c.pieces[last] = append(c.pieces[last], owned{addrs[0], blockCRC(extra)})
				upd[last] = encodeOwned(version, c.pieces[last])
				return upd
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		snaps = append(snaps, snapshot{flushes: crash.Flushes(), pieces: v.Pieces()})
		if err := v.Check(c.live()); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	writes := 0
	for _, op := range crash.Ops() {
		if op.Kind == device.OpWrite {
			writes++
		}
	}
	reqs := v.Stats().Writes - reqs0
	states := crash.States(rng, 4)
	t.Logf("%d commits: %d device requests, %d writes recorded, %d flushes, %d crash states", commits, reqs, writes, crash.Flushes(), len(states))
	if int64(writes) <= reqs {
		t.Fatalf("%d writes recorded for %d requests: gathered requests should be recorded as the writes that joined them", writes, reqs)
	}
	for _, st := range states {
		verifyCrashState(t, crash, st, snaps, ps)
	}
}
