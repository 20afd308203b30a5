// Package testseed picks the seed of a randomized test: the one a flag
// names, to replay a run, or else a fresh one; either way it is logged
// with the flag that replays it. It owns no state and takes no locks.
package testseed

import (
	"testing"
	"time"
)

// Pick returns flagged, or a fresh seed when flagged is 0, and logs it
// with the replay flag (flagName, without the dash).
func Pick(t testing.TB, flagged int64, flagName string) int64 {
	t.Helper()
	seed := flagged
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -%s=%d)", seed, flagName, seed)
	return seed
}
