// Package importcheck holds a package to the imports its doc allows: a
// test in that package calls Only. It owns no state and takes no locks.
package importcheck

import (
	"go/build"
	"strings"
	"testing"
)

// Only fails t for every import of the package in the test's directory
// (its non-test files) outside the standard library and allowed, full
// import paths; name is how the messages call the package.
func Only(t testing.TB, name string, allowed ...string) {
	t.Helper()
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range p.Imports {
		std := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
		ok := std
		for _, a := range allowed {
			ok = ok || path == a
		}
		if !ok {
			t.Errorf("%s imports %s; it may import %s and the standard library only", name, path, strings.Join(allowed, ", "))
		}
	}
}
