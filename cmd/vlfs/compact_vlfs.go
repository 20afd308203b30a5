package main

import (
	"fmt"
	"io"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// compactFSImage compacts a vlfs image offline: it mounts the file system
// (no FUSE), lets the compactor move its blocks (each move committed
// before the old copy is freed) and unmounts cleanly.
func compactFSImage(path string, cfg compactor.Config, quiet bool, stderr io.Writer) (*compactResult, error) {
	dev, err := device.OpenFile(path, device.FileOptions{})
	if err != nil {
		return nil, err
	}
	fsys, err := vlfs.Mount(dev, vlfs.Options{FlushInterval: time.Hour})
	if err != nil {
		return nil, fmt.Errorf("neither a logical disk nor a mountable vlfs image: %w", err)
	}
	if p := fsys.Stats().Vol.Placement; p != vld.PlaceEager.String() {
		fsys.Close()
		return nil, fmt.Errorf("placement %s: the compactor is for eager volumes only (docs/compactor.md): %w", p, vlfs.ErrNotSupported)
	}
	res, err := compactTarget(fsys.CompactTarget(), path, cfg, quiet, stderr, func() error {
		if err := fsys.Sync(); err != nil {
			return err
		}
		return fsys.Volume().Protect()
	})
	if cerr := fsys.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}
