package vld

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/sched"
)

// TestReadPriority: a read arriving while a long write is being written
// goes before the write's next batch with batching, after all of it with
// FIFO.
func TestReadPriority(t *testing.T) {
	type result struct{ readDone, writeDone float64 }
	run := func(b sched.Batch) result {
		v, _ := newTestVolume(t, "carson-setia", 16<<20, Options{Batch: b})
		bs := v.BlockSize()
		target, err := v.WriteBlocks([][]byte{block(bs, 9)}, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		t0 := v.NowMs() + 1
		data := make([][]byte, 24)
		for i := range data {
			data[i] = block(bs, byte(i))
		}
		if err := v.SubmitWrite(data, WriteOpts{}, t0, 1); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, bs)
		if err := v.SubmitRead(target[0], buf, t0+0.5, 2); err != nil {
			t.Fatal(err)
		}
		var res result
		for v.Queued() > 0 {
			for _, c := range dispatched(t, v) {
				if c.Write {
					res.writeDone = c.DoneMs
					if len(c.Addrs) != len(data) {
						t.Fatalf("write completed with %d addresses", len(c.Addrs))
					}
				} else {
					res.readDone = c.DoneMs
					if c.ArriveMs != t0+0.5 || c.Addr != target[0] {
						t.Errorf("read completion %+v", c)
					}
				}
			}
		}
		if !bytes.Equal(buf, block(bs, 9)) {
			t.Error("queued read returned the wrong data")
		}
		return res
	}
	fifo := run(sched.Batch{})
	batched := run(sched.Batch{Mode: sched.BatchFixed, Blocks: 4})
	t.Logf("FIFO: read done %.2f, write %.2f; batched: read %.2f, write %.2f (ms)", fifo.readDone, fifo.writeDone, batched.readDone, batched.writeDone)
	if fifo.readDone <= fifo.writeDone {
		t.Errorf("FIFO: read done at %v before the write it queued behind (%v)", fifo.readDone, fifo.writeDone)
	}
	if batched.readDone >= batched.writeDone {
		t.Errorf("batched: read done at %v, after the write (%v)", batched.readDone, batched.writeDone)
	}
	if batched.readDone >= fifo.readDone {
		t.Errorf("read response with batching %v, FIFO %v", batched.readDone, fifo.readDone)
	}
}

// TestBatchedWritesInOrder: every batch of a multi-block write is placed
// as consecutive blocks in request order, and the synchronous API returns
// once all batches are written.
func TestBatchedWritesInOrder(t *testing.T) {
	v, _ := newTestVolume(t, "carson-setia", 16<<20, Options{Batch: sched.Batch{Mode: sched.BatchFixed, Blocks: 3}})
	if st := v.Stats(); st.BatchBlocks != 3 || st.BatchPolicy != "3" {
		t.Fatalf("stats say batch %d (%s)", st.BatchBlocks, st.BatchPolicy)
	}
	bs := v.BlockSize()
	data := make([][]byte, 10)
	for i := range data {
		data[i] = block(bs, byte(40+i))
	}
	w0 := v.Stats().Writes
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Stats().Writes - w0; got != 4 {
		t.Errorf("10 blocks in batches of 3 took %d device writes, want 4", got)
	}
	for i := 0; i < len(addrs); i += 3 {
		for j := i + 1; j < min(i+3, len(addrs)); j++ {
			if addrs[j] != addrs[j-1]+1 {
				t.Errorf("batch at %d not consecutive: %v", i, addrs)
			}
		}
	}
	buf := make([]byte, bs)
	for i, a := range addrs {
		if err := v.ReadBlock(a, buf); err != nil || !bytes.Equal(buf, data[i]) {
			t.Fatalf("block %d at %d: %v", i, a, err)
		}
	}
	if err := v.WriteAt(addrs[2], data[:2]); err != nil {
		t.Fatal(err)
	}
	if err := v.ReadBlock(addrs[3], buf); err != nil || !bytes.Equal(buf, data[1]) {
		t.Errorf("WriteAt through the queue: %v", err)
	}
	if err := v.Check(addrs); err != nil {
		t.Fatal(err)
	}
}

// TestBatchedRandomOps drives the synchronous API with batching on through
// random writes, frees, reads and commits, checking contents and the
// volume's invariants after every step.
func TestBatchedRandomOps(t *testing.T) {
	for _, b := range []sched.Batch{{Mode: sched.BatchFixed, Blocks: 2}, {Mode: sched.BatchAuto}, {Mode: sched.BatchSegment}} {
		v, _ := newTestVolume(t, "hp97560", 8<<20, Options{Batch: b, CheckpointEvery: 8})
		rng := rand.New(rand.NewSource(int64(b.Mode)))
		bs := v.BlockSize()
		live := map[Addr][]byte{}
		buf := make([]byte, bs)
		for step := 0; step < 150; step++ {
			switch r := rng.Intn(10); {
			case r < 4:
				data := make([][]byte, 1+rng.Intn(9))
				for i := range data {
					data[i] = block(bs, byte(rng.Intn(256)))
				}
				addrs, err := v.WriteBlocks(data, WriteOpts{})
				if err != nil {
					t.Fatalf("%s step %d: %v", b, step, err)
				}
				for i, a := range addrs {
					live[a] = data[i]
				}
			case r < 6:
				for a := range live {
					if err := v.Free(a); err != nil {
						t.Fatal(err)
					}
					delete(live, a)
					break
				}
			case r < 8:
				for a, want := range live {
					if err := v.ReadBlock(a, buf); err != nil || !bytes.Equal(buf, want) {
						t.Fatalf("%s step %d: read %d: %v", b, step, a, err)
					}
					break
				}
			default:
				if err := v.Commit(map[uint32][]byte{uint32(rng.Intn(4)): {byte(step)}}); err != nil {
					t.Fatal(err)
				}
			}
			addrs := make([]Addr, 0, len(live))
			for a := range live {
				addrs = append(addrs, a)
			}
			if err := v.Check(addrs); err != nil {
				t.Fatalf("%s step %d: %v", b, step, err)
			}
		}
	}
}

// TestConcurrentBatching runs writers and readers at once through the
// queues (meant for -race): every call completes with the right data.
func TestConcurrentBatching(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 16<<20, Options{Batch: sched.Batch{Mode: sched.BatchFixed, Blocks: 2}})
	bs := v.BlockSize()
	seed, err := v.WriteBlocks([][]byte{block(bs, 1), block(bs, 2)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	var mu sync.Mutex
	var written []Addr
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, bs)
			for i := 0; i < 20; i++ {
				if g%2 == 0 {
					addrs, err := v.WriteBlocks([][]byte{block(bs, 3), block(bs, 4), block(bs, 5)}, WriteOpts{})
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					written = append(written, addrs...)
					mu.Unlock()
					continue
				}
				if err := v.ReadBlock(seed[i%2], buf); err != nil || !bytes.Equal(buf, block(bs, byte(1+i%2))) {
					errs <- errors.Join(err, errors.New("wrong data"))
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v.Queued() != 0 {
		t.Errorf("%d requests left queued", v.Queued())
	}
	if err := v.Check(append(written, seed...)); err != nil {
		t.Fatal(err)
	}
}

func TestSubmitErrors(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{Batch: sched.Batch{Mode: sched.BatchAuto}})
	bs := v.BlockSize()
	cases := []struct {
		err  error
		name string
	}{
		{v.SubmitRead(10, make([]byte, bs), math.NaN(), 0), "arrival"},
		{v.SubmitRead(10, make([]byte, bs), -1, 0), "arrival"},
		{v.SubmitRead(10, make([]byte, 3), 0, 0), "buffer"},
		{v.SubmitRead(1, make([]byte, bs), 0, 0), "outside"},
		{v.SubmitWrite(nil, WriteOpts{}, 0, 0), "no blocks"},
		{v.SubmitWrite([][]byte{make([]byte, bs)}, WriteOpts{}, math.Inf(1), 0), "arrival"},
		{v.SubmitWrite([][]byte{make([]byte, 5)}, WriteOpts{}, 0, 0), "bytes"},
	}
	for i, c := range cases {
		if !errors.Is(c.err, ErrInvalid) || !strings.Contains(c.err.Error(), c.name) {
			t.Errorf("case %d: %v, want ErrInvalid naming %q", i, c.err, c.name)
		}
	}
	if cs, err := v.Dispatch(); cs != nil || err != nil {
		t.Errorf("empty dispatch: %v %v", cs, err)
	}
}

// TestOpenRejectsBadBatch: a policy that cannot be resolved fails Open,
// naming the parameter.
func TestOpenRejectsBadBatch(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 8<<20, Options{})
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := Open(keepOpen{dev}, Options{Batch: sched.Batch{Mode: sched.BatchFixed, Blocks: 0}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "blocks") {
		t.Errorf("open with batch of 0 blocks: %v", err)
	}
	v2, err := Open(keepOpen{dev}, Options{Batch: sched.Batch{Mode: sched.BatchAuto}})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := disk.CStarFor(testModel(t, "st19101"), v2.BlockSize())
	if st := v2.Stats(); st.BatchBlocks != in.Batch || st.BatchPolicy != "auto" {
		t.Errorf("auto: stats %d %q, c* batch %d", st.BatchBlocks, st.BatchPolicy, in.Batch)
	}
}
