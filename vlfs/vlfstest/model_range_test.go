package vlfstest

import (
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// TestRandomOpsRangePlacement is TestRandomOpsAgainstModel on a range-placed
// volume, with normal and with tiny caches (early write-outs split files
// into many chains): the file system must agree with the model and check
// clean.
func TestRandomOpsRangePlacement(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	for round := range 2 {
		dev := device.NewMem(48 << 20)
		if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: st19101(t), Placement: vld.PlaceRange}); err != nil {
			t.Fatal(err)
		}
		im := &modelImage{dev: dev, o: vlfs.Options{Logf: t.Logf}}
		if round == 1 {
			im.o.TinyCaches = true
			im.o.DirtyLimitBytes = 16 << 10
		}
		if err := im.mount(); err != nil {
			t.Fatal(err)
		}
		r := newModelRun(rand.New(rand.NewSource(seed+int64(round))), im)
		err := r.run(1500)
		if cerr := im.close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
