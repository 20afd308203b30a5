package vld

import (
	"fmt"
	"testing"
)

// TestReopenKeepsNoRecycledEntries: a running volume recycles an obsolete
// log entry as soon as the new root covers what it led to (vlog.add), yet
// an older entry on disk still points at it, and until its block is
// reused a reopen finds it intact with the sequence number the pointer
// expects. Recovery must not keep it: after a clean or an unclean stop
// the reopened volume holds exactly the entries and the free blocks the
// running one had.
func TestReopenKeepsNoRecycledEntries(t *testing.T) {
	for _, clean := range []bool{true, false} {
		t.Run(fmt.Sprintf("clean=%v", clean), func(t *testing.T) {
			v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
			// Pieces rewritten in turn, fewer times than a checkpoint
			// takes: obsolete entries are recycled while older entries
			// still name them on disk.
			for i := range 40 {
				p := uint32(i % 5)
				if i%3 == 0 {
					p = 0
				}
				if err := v.Commit(map[uint32][]byte{p: []byte(fmt.Sprintf("piece %d version %d", p, i))}); err != nil {
					t.Fatal(err)
				}
			}
			v.mu.Lock()
			entries, free := len(v.log.entries), v.alloc.Free()
			v.mu.Unlock()
			if clean {
				stopAsBefore(t, v) // a Close now copies the pieces and empties the log
			}
			w, err := Open(keepOpen{dev}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			if err := w.Check(nil); err != nil {
				t.Fatal(err)
			}
			w.mu.Lock()
			gotEntries, gotFree := len(w.log.entries), w.alloc.Free()
			w.mu.Unlock()
			if gotEntries != entries || gotFree != free {
				t.Fatalf("reopened: %d log entries and %d free blocks, the running volume had %d and %d", gotEntries, gotFree, entries, free)
			}
			for p := range uint32(5) {
				if got, want := string(w.Pieces()[p]), string(v.Pieces()[p]); got != want {
					t.Fatalf("piece %d: %q after the reopen, %q before", p, got, want)
				}
			}
		})
	}
}
