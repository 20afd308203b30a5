package alloc

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports holds the package to what its doc allows: vld/disk and the
// standard library (never vld, which imports it).
func TestImports(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range p.Imports {
		if path != "github.com/vlfs/vlfs/vld/disk" && strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
			t.Errorf("vld/alloc imports %s; it may import vld/disk and the standard library only", path)
		}
	}
}
