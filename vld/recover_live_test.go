package vld

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// TestCrashFindsDamagedLiveEntry: after a crash (no clean stop's tail to
// compare with), an older live log entry that no longer reads is what the
// walk also sees when the running volume recycled it. The live-set digest
// of the newest commit tells them apart: the open refuses the volume naming
// repair, and a repair's open (AcceptLoss) takes the older version and says
// so. An entry that was recycled, or nothing damaged, opens as before.
func TestCrashFindsDamagedLiveEntry(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	// Piece 1 once, then piece 2 many times: piece 1's entry stays live,
	// older than the root, and piece 2's old entries are recycled.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(v.Commit(map[uint32][]byte{1: []byte("piece 1 version 1")}))
	must(v.Commit(map[uint32][]byte{1: []byte("piece 1 version 2")}))
	for i := range 6 {
		must(v.Commit(map[uint32][]byte{2: []byte(fmt.Sprintf("piece 2 version %d", i))}))
	}
	v.mu.Lock()
	live := v.log.cur[1].ref
	root := v.log.root
	v.mu.Unlock()
	if live.Seq >= root.Seq || live.Addr == root.Addr {
		t.Fatalf("piece 1's entry %+v is not older than the root %+v", live, root)
	}
	piece := func(v *Volume, p uint32) string { return strings.TrimRight(string(v.Pieces()[p]), "\x00") }
	crash := dev.Bytes() // the volume is never closed: a crash (Bytes copies)

	// Undamaged, the crash image opens with every piece.
	w, err := Open(keepOpen{device.MemFrom(crash)}, Options{})
	must(err)
	if got := piece(w, 1); got != "piece 1 version 2" {
		t.Fatalf("piece 1 after the crash: %q", got)
	}
	must(w.Close())

	// Piece 1's live entry zeroed: refused, naming repair.
	bs := int64(v.BlockSize())
	damaged := append([]byte(nil), crash...)
	clear(damaged[int64(live.Addr)*bs : int64(live.Addr+1)*bs])
	_, err = Open(keepOpen{device.MemFrom(damaged)}, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "fsck --repair") {
		t.Fatalf("open with a damaged live entry after a crash: %v, want ErrCorrupt naming fsck --repair", err)
	}
	// A repair's open takes what remains and says so.
	r, err := Open(keepOpen{device.MemFrom(damaged)}, Options{AcceptLoss: true})
	must(err)
	defer r.Close()
	if !r.Recovery().PiecesLost {
		t.Error("the repair's open does not say pieces were lost")
	}
	if got := piece(r, 1); got == "piece 1 version 2" {
		t.Errorf("piece 1 reads %q from a damaged entry", got)
	}
	if got := piece(r, 2); got != "piece 2 version 5" {
		t.Errorf("piece 2 after the repair's open: %q", got)
	}
}
