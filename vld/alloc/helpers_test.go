package alloc

import (
	"flag"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// seedFlag replays the randomized allocator tests with one seed.
var seedFlag = flag.Int64("alloc.seed", 0, "replay the randomized allocator tests with this seed")

// testModel returns a preset, failing the test if it is missing (as vld's
// own test helper does).
func testModel(t testing.TB, name string) *disk.Model {
	t.Helper()
	m, err := disk.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
