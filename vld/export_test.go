package vld

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// Hooks for the external tests (package vld_test): the tests that run a
// logical disk (vld/logical) on the volume cannot be in package vld, which
// vld/logical imports. They reach the internal test helpers through these.

// PresetModel returns a preset, failing the test if it is missing.
func PresetModel(t testing.TB, name string) *disk.Model { t.Helper(); return testModel(t, name) }

// Block is the test block of bs bytes made from fill (block).
func Block(bs int, fill byte) []byte { return block(bs, fill) }

// Seeds are the seeds of a randomized test (-vld.seed).
func Seeds(t *testing.T) []int64 { return testSeeds(t) }

// NewestOnExtraTrack reports whether the newest log entry since the
// checkpoint lies on one of its extra tracks, outside its window.
func NewestOnExtraTrack(v *Volume) bool { return newestOnExtraTrack(v) }

// KeepOpen lets a test reopen a device after Volume.Close.
type KeepOpen = keepOpen

// CrashSnap is the state a test acknowledged once the device had seen
// flushes flushes.
type CrashSnap[S any] = crashSnap[S]

// Snap is a CrashSnap of state after flushes flushes.
func Snap[S any](flushes int, state S) CrashSnap[S] {
	return CrashSnap[S]{flushes: flushes, state: state}
}

// Flushes is the flushes the device had seen when s was acknowledged.
func (s crashSnap[S]) Flushes() int { return s.flushes }

// AckedOrInFlight returns the states a crash after f flushes may recover.
func AckedOrInFlight[S any](snaps []CrashSnap[S], f int) []S { return ackedOrInFlight(snaps, f) }
