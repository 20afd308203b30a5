package main

import (
	"fmt"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vlfs"
)

// checkCompactorFlag reads --compactor (or -o compactor=).
func checkCompactorFlag(s string) error {
	switch s {
	case "on", "off":
		return nil
	}
	return fmt.Errorf("--compactor %q: want on or off", s)
}

// startCompactor starts the mount's background compactor unless it is
// off or the mount is read-only (nothing may move then).
func startCompactor(a *mountArgs, fsys *vlfs.FS) error {
	if a.compactor == "off" || a.fsOpt.ReadOnly {
		return nil
	}
	if err := fsys.StartCompactor(compactor.Config{}); err != nil {
		return fmt.Errorf("starting the compactor: %w", err)
	}
	return nil
}
