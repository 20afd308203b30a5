package sched

import (
	"testing"

	"github.com/vlfs/vlfs/internal/importcheck"
)

// TestImports holds the package to what its doc allows: vld/disk and the
// standard library (never vld, which imports it).
func TestImports(t *testing.T) {
	importcheck.Only(t, "vld/sched", "github.com/vlfs/vlfs/vld/disk")
}
