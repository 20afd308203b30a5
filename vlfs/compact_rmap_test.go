package vlfs

import (
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
)

// TestRevMapMatchesModel sets random owners, ownNone among them, on a
// paged reverse map and on a plain map, and reads every block back: list
// pages, pages that turned dense, block 0 and blocks past the end.
func TestRevMapMatchesModel(t *testing.T) {
	const n = 10 * revPageLen
	seed := rand.Int63()
	rng := rand.New(rand.NewSource(seed))
	var r revMap
	r.set(5, dataOwner(1, 1)) // before build: a no-op
	if r.get(5) != ownNone {
		t.Fatal("an unbuilt map returned an owner")
	}
	r.build(n)
	model := map[vld.Addr]owner{}
	for i := 0; i < 20000; i++ {
		// Page 0 gets many blocks (it turns dense), the others few.
		a := vld.Addr(rng.Intn(revPageLen))
		if i%2 == 1 {
			a = vld.Addr(revPageLen + rng.Intn(n-revPageLen+8))
			a -= a % 17 // at most 31 distinct blocks per page
		}
		o := dataOwner(Ino(rng.Intn(1000)+1), uint64(rng.Intn(100)))
		if rng.Intn(4) == 0 {
			o = ownNone
		}
		r.set(a, o)
		if a != 0 && a < n {
			model[a] = o
		}
	}
	for a := vld.Addr(0); a < n+10; a++ {
		if got, want := r.get(a), model[a]; got != want {
			t.Fatalf("seed %d: block %d: owner %x, want %x", seed, a, got, want)
		}
	}
	if r.pages[0].dense == nil {
		t.Errorf("seed %d: a page with more than %d owners stayed a list", seed, revSparseMax)
	}
	for i, p := range r.pages[1:] {
		if p != nil && (p.dense != nil || len(p.sparse) > revSparseMax) {
			t.Errorf("seed %d: page %d of at most 31 owners is dense or too long", seed, i+1)
		}
	}
}

// TestRevMapSparseCost: one owner in every page of a 1 TiB volume's map
// costs a list entry per page, not a dense page: under 64 bytes per page
// where the dense map kept 4 KiB resident.
func TestRevMapSparseCost(t *testing.T) {
	var r revMap
	r.build(1 << 28)
	for a := vld.Addr(1); a < 1<<28; a += revPageLen {
		r.set(a, iblockOwner(uint64(a)))
	}
	for i, p := range r.pages {
		if p == nil || p.dense != nil || len(p.sparse) != 1 || cap(p.sparse) > 1 {
			t.Fatalf("page %d: %+v", i, p)
		}
	}
	if got := r.get(1 + 7*revPageLen); got != iblockOwner(1+7*revPageLen) {
		t.Fatalf("owner %x", got)
	}
}
