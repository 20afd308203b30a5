package main

import (
	"errors"
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
// off or the mount is read-only (nothing may move then): the command runs
// it beside the file system, which does not know of it. On a volume that
// does not place eagerly (inplace, lfs, range) the compactor has no job:
// "on", the default, is then a no-op that the mount's log says.
func startCompactor(a *mountArgs, fsys *vlfs.FS) (*compactor.Background, error) {
	if a.compactor == "off" || a.fsOpt.ReadOnly {
		return nil, nil
	}
	err := fsys.Compactable()
	if errors.Is(err, vlfs.ErrNotSupported) {
		fsys.Logf("vlfs: compactor off: %s has placement %s; the idle-time compactor is for eager volumes only (docs/compactor.md)",
			a.image, fsys.Stats().Vol.Placement)
		return nil, nil
	}
	var bg *compactor.Background
	if err == nil {
		bg, err = compactor.StartBackground(fsys.CompactTarget(), compactor.Config{}, fsys.Logf)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the compactor: %w", err)
	}
	return bg, nil
}
