// Package vlfstest is the test harness of package vlfs: a reference model
// of the file system (model.go) that seeded tests, the metamorphic test
// and a fuzz target drive, the mount-and-repair fuzz targets on damaged
// images (fuzz_mount.go), and their go-fuzz adapters (gofuzz.go, built
// only with the gofuzz tag). It is test support, not production code:
// nothing but tests and go-fuzz builds import it. It uses vlfs's exported
// API only, so that what it checks is what a caller sees.
//
// It imports vlfs and the vld packages below it; nothing imports it. It
// holds no locks of its own: a model run drives one file system from one
// goroutine, and the concurrent model test gives each run its own
// directory.
//
// Why a package of its own: go-fuzz-build compiles no _test.go files, so
// the model and the targets must live in a non-test file; here they do
// so without shipping in the production package.
package vlfstest
