// Package fuzzlimit owns the per-input limits of the module's fuzz
// targets: AllocLimit, the most one input may allocate, and Run, which
// runs one input under it and under a hang limit the caller chooses (a
// timer panics, since the native engine has no time limit of its own; both
// engines report the panic as a crasher). The targets themselves live in
// each package's fuzz.go (docs/fuzzing.md).
package fuzzlimit

import (
	"fmt"
	"runtime/metrics"
	"time"
)

// AllocLimit is the most one fuzz input may allocate, in bytes.
const AllocLimit = 256 << 20

// Hang is the hang limit of a decoder-sized target: one input running
// longer is a hang. Targets that drive a whole file system choose longer.
const Hang = 10 * time.Second

// Run runs fn, one fuzz input, and returns its score and error, or an
// error if fn allocated more than AllocLimit bytes (measured with
// runtime/metrics /gc/heap/allocs:bytes around the call, so allocations
// of other goroutines meanwhile count too). If fn runs longer than hang, a
// timer panics, which ends the process: the input is a crasher.
func Run(hang time.Duration, fn func() (int, error)) (int, error) {
	t := time.AfterFunc(hang, func() { panic(fmt.Sprintf("fuzz input ran %v: hang", hang)) })
	defer t.Stop()
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	n, err := fn()
	metrics.Read(s)
	if d := s[0].Value.Uint64() - before; d > AllocLimit {
		return n, fmt.Errorf("one input allocated %d bytes (limit %d)", d, AllocLimit)
	}
	return n, err
}
