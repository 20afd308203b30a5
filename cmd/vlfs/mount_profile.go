package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts the daemon's CPU profile into path ("" = none) and
// returns what stops it and closes the file. A profile that cannot start
// is reported and the mount goes on: it is a diagnostic, not a service.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
