// Package fuzz holds the fuzz targets of package disk (the model JSON
// reader, and Service against PositionMs), their native fuzz tests, seed
// corpus (testdata/fuzz) and go-fuzz adapters (gofuzz.go, built only with
// the gofuzz tag), with the seeded random test that checks the same
// Service property (TestServicePositionConsistency). It is test support,
// not production code: nothing imports it, and it uses disk's exported API
// only.
//
// Why a package of its own: go-fuzz-build compiles no _test.go files, so
// the targets must live in a non-test file; here they do so without
// shipping in the production package (docs/fuzzing.md).
package fuzz
