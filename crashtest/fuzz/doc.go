// Package fuzz holds the fuzz target of package crashtest (the workload
// reader), its native fuzz test and go-fuzz adapter (gofuzz.go, built only
// with the gofuzz tag); its seeds are the example workloads of
// testdata/crash/examples. It is test support, not production code:
// nothing imports it, and it uses crashtest's exported API only.
//
// Why a package of its own: go-fuzz-build compiles no _test.go files, so
// the target must live in a non-test file; here it does so without
// shipping in the production package (docs/fuzzing.md).
package fuzz
