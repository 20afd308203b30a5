// Package fuzz holds the fuzz target of package mountinfo (ParseLine,
// ConnID and Parse), its native fuzz test, seed corpus (testdata/fuzz) and
// go-fuzz adapter (gofuzz.go, built only with the gofuzz tag). It is test
// support, not production code: nothing imports it, and it uses
// mountinfo's exported API only.
//
// Why a package of its own: go-fuzz-build compiles no _test.go files, so
// the target must live in a non-test file; here it does so without
// shipping in the production package (docs/fuzzing.md).
package fuzz
