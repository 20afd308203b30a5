package fuzz

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/crashtest"
)

// FuzzParseWorkload: see fuzzParseWorkload.
func FuzzParseWorkload(f *testing.F) {
	ex, _ := filepath.Glob("../../testdata/crash/examples/*.wl")
	for _, p := range ex {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, w := range crashtest.Compact()[:2] {
		f.Add([]byte(w.String()))
	}
	f.Add([]byte("compact\nwrite A 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := fuzzParseWorkload(data); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
	})
}
