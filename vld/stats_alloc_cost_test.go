package vld

import "testing"

// timeEvery is the allocator's sampling of decision times (vld/alloc:
// one decision in 8 is timed).
const timeEvery = 8

// The allocator's cost per block counts the blocks writes placed and the
// time their searches took, not the blocks a mount finds in use.
func TestStatsAllocationCost(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 64<<20, Options{})
	data := [][]byte{block(v.bs, 1), block(v.bs, 2), block(v.bs, 3)}
	var addrs []Addr
	for range 4 * timeEvery { // enough decisions for some to be timed
		a, err := v.WriteBlocks(data[:1], WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a...)
	}
	st := v.Stats()
	if st.AllocBlocks < int64(len(addrs)) || st.AllocNs <= 0 || st.AllocDecisions < 4*timeEvery {
		t.Fatalf("after %d blocks written: %d placed, %d ns, %d decisions", len(addrs), st.AllocBlocks, st.AllocNs, st.AllocDecisions)
	}
	commitAndCheck(t, v, addrs, 1)
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := Open(keepOpen{dev}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, a := range addrs {
		if err := w.MarkLive(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.AllocBlocks != 0 || st.AllocNs != 0 {
		t.Fatalf("freshly mounted: %d blocks placed, %d ns counted; the mount found its blocks, it placed none", st.AllocBlocks, st.AllocNs)
	}
	if _, err := w.WriteBlocks(data[:1], WriteOpts{}); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.AllocBlocks != 1 {
		t.Fatalf("one block written after the mount: %d counted", st.AllocBlocks)
	}
}
