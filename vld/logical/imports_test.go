package logical

import (
	"testing"

	"github.com/vlfs/vlfs/internal/importcheck"
)

// TestImports holds the package to what its doc allows: vld (the volume
// it keeps its map on), vld/device and the standard library.
func TestImports(t *testing.T) {
	importcheck.Only(t, "vld/logical", "github.com/vlfs/vlfs/vld", "github.com/vlfs/vlfs/vld/device")
}
