package vlfstest

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// metaConfig is one way of storing the same file system: what a user sees
// must not depend on it.
type metaConfig struct {
	name      string
	version   uint32
	placement vld.Placement
	tiny      bool  // Options.TinyCaches: write out and evict between commits
	dirty     int64 // Options.DirtyLimitBytes (0: the default)
}

// metaConfigs are every file-system version, every placement and small
// caches, each changing one thing from the default.
func metaConfigs() []metaConfig {
	cs := []metaConfig{{name: "default"}}
	for v := uint32(ondisk.FSVersionAddr); v < ondisk.FSVersion; v++ {
		cs = append(cs, metaConfig{name: fmt.Sprintf("version %d", v), version: v})
	}
	for _, p := range []vld.Placement{vld.PlaceInPlace, vld.PlaceLFS, vld.PlaceRange} {
		cs = append(cs, metaConfig{name: p.String(), placement: p})
	}
	return append(cs,
		metaConfig{name: "tiny caches", tiny: true},
		metaConfig{name: "tiny caches, 16 KiB dirty", tiny: true, dirty: 16 << 10},
		metaConfig{name: "version 1, tiny caches", version: ondisk.FSVersionAddr, tiny: true})
}

// TestModelMetamorphic runs one seeded operation sequence on every
// configuration: each run must agree with the model (as
// TestRandomOpsAgainstModel), and every run must give the same answers as
// the default one, operation by operation. The model checks what it knows
// of; the comparison also catches a configuration that answers
// differently where the model accepts either answer (an error's kind, the
// point where a run first fails).
func TestModelMetamorphic(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	steps := 800
	if testing.Short() {
		steps = 300
	}
	var want []string
	for _, c := range metaConfigs() {
		dev := device.NewMem(48 << 20)
		if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: st19101(t), Version: c.version, Placement: c.placement}); err != nil {
			t.Fatalf("%s: mkfs: %v", c.name, err)
		}
		im := &modelImage{dev: dev, o: vlfs.Options{Logf: t.Logf, TinyCaches: c.tiny, DirtyLimitBytes: c.dirty}}
		if err := im.mount(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := newModelRun(rand.New(rand.NewSource(seed)), im)
		err := r.run(steps)
		if cerr := im.close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want == nil {
			want = r.log
			continue
		}
		if i := firstDiffLine(r.log, want); i >= 0 {
			t.Fatalf("%s answers differently from the default at operation %d:\n%s\nthe default:\n%s",
				c.name, i, lastLines(r.log[:min(i+1, len(r.log))], 5), lastLines(want[:min(i+1, len(want))], 5))
		}
	}
}

// firstDiffLine is the index of the first line where a and b differ, or
// -1 if they are the same.
func firstDiffLine(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
