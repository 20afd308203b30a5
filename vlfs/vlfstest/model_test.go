package vlfstest

import (
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestRandomOpsAgainstModel drives the file system and the reference model
// of fuzz_model.go with the same seeded random operations.
func TestRandomOpsAgainstModel(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	steps := 3000
	if testing.Short() {
		steps = 600
	}
	for round := range 5 {
		im := &modelImage{dev: newFormatted(t, 48<<20), o: vlfs.Options{Logf: t.Logf}}
		if round == 3 {
			// Trees named by address, as images made before the node map.
			im.dev = newFormattedVersion(t, 48<<20, ondisk.FSVersionAddr)
		}
		if round == 1 {
			// Tiny caches and dirty limit: every path through eviction
			// and early write-out gets exercised.
			im.o.TinyCaches = true
			im.o.DirtyLimitBytes = 16 << 10
		}
		if round == 2 {
			// Writes of two whole blocks or more go straight to the
			// volume, mixed with buffered partial blocks.
			im.o.WriteThroughBytes = 8 << 10
		}
		if round == 4 {
			// Times left to the kernel, as under FUSE's writeback cache:
			// a write inside the size then changes only the block count
			// of the record (TestHoleFillKeepsBlockCount), with tiny
			// caches so that records are evicted and read back.
			im.kernelTimes = true
			im.o.TinyCaches = true
		}
		if err := im.mount(); err != nil {
			t.Fatal(err)
		}
		r := newModelRun(rand.New(rand.NewSource(seed+int64(round))), im)
		err := r.run(steps)
		if cerr := im.close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// TestModelCatchesDisagreement shows the model's comparison can fail: after
// a run that agrees, one byte of a model file, a model link count and a
// model name are changed in turn, and each must be reported.
func TestModelCatchesDisagreement(t *testing.T) {
	damage := []struct {
		name string
		fn   func(n *mNode, parent *mNode, name string)
	}{
		{"content", func(n, _ *mNode, _ string) { n.data[len(n.data)/2] ^= 1 }},
		{"nlink", func(n, _ *mNode, _ string) { n.nlink++ }},
		{"entry", func(n, parent *mNode, name string) { delete(parent.kids, name); parent.kids[name+"x"] = n }},
	}
	for _, d := range damage {
		t.Run(d.name, func(t *testing.T) {
			// The first seed whose run leaves a non-empty file at the root
			// (the operation mix decides which seeds do).
			var r *modelRun
			var victim string
			for seed := int64(1); victim == ""; seed++ {
				if seed > 20 {
					t.Fatal("seeds 1-20 left no non-empty file at the root")
				}
				im := &modelImage{dev: newFormatted(t, 8<<20), o: vlfs.Options{Logf: t.Logf}}
				if err := im.mount(); err != nil {
					t.Fatal(err)
				}
				defer im.close()
				r = newModelRun(rand.New(rand.NewSource(seed)), im)
				if err := r.run(300); err != nil {
					t.Fatal(err)
				}
				for _, name := range sortedKeys(r.root.kids) {
					if n := r.root.kids[name]; !n.dir && n.link == "" && len(n.data) > 0 {
						victim = name
					}
				}
			}
			d.fn(r.root.kids[victim], r.root, victim)
			if err := r.guard(r.compareTree); err == nil {
				t.Fatalf("model damaged (%s of /%s) but compareTree agreed", d.name, victim)
			}
		})
	}
}
