package place

import (
	"testing"

	"github.com/vlfs/vlfs/internal/importcheck"
)

// TestImports holds the package to what its doc allows: vld/alloc,
// vld/disk, vld/ondisk, vld/rangedisk and the standard library (never
// vld, which imports it).
func TestImports(t *testing.T) {
	importcheck.Only(t, "vld/place",
		"github.com/vlfs/vlfs/vld/alloc",
		"github.com/vlfs/vlfs/vld/disk",
		"github.com/vlfs/vlfs/vld/ondisk",
		"github.com/vlfs/vlfs/vld/rangedisk")
}
