package main

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs"
)

// checkPlacement refuses a mount whose --placement differs from the
// image's: the placement is fixed at mkfs (kept in the superblock), and a
// benchmark that asked for one placement must not silently measure another.
func checkPlacement(a *mountArgs, fsys *vlfs.FS) error {
	if a.placement == "" {
		return nil
	}
	want, err := vld.ParsePlacement(a.placement)
	if err != nil {
		return err
	}
	if got := fsys.Stats().Vol.Placement; got != want.String() {
		return fmt.Errorf("%s was created with --placement %s; placement is fixed at mkfs (vlfs mkfs --placement %s makes a new image)", a.image, got, want)
	}
	return nil
}
