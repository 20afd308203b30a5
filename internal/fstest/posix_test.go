package fstest

import "testing"

// TestPosixOracle runs the conformance table against a directory of the
// host's own file system, proving the table's expectations right.
func TestPosixOracle(t *testing.T) {
	RunPosix(t, func(t *testing.T) string { return t.TempDir() })
}
