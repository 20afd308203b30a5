package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/vlfs/vlfs/internal/mountinfo"
)

// What `vlfs mount` and `vlfs disk serve` share before and after their
// FUSE mount.

// checkMountPoint refuses a mount point that cannot take a mount, naming
// the fix: umount is the command that clears a dead mount there ("vlfs
// umount", "vlfs disk umount"), ifMounted what to do when dir is a mount
// point already.
func checkMountPoint(dir, umount, ifMounted string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, syscall.ENOTCONN):
		return fmt.Errorf("%s is a dead FUSE mount (its server exited); clear it with: %s %s", dir, umount, dir)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("mount point %s does not exist; create it with: mkdir -p %s", dir, dir)
	case err != nil:
		return fmt.Errorf("mount point: %w", err)
	case !st.IsDir():
		return fmt.Errorf("mount point %s is not a directory", dir)
	}
	fstype, mounted, err := mountinfo.Type(dir)
	if err != nil {
		return err
	}
	if mounted {
		return fmt.Errorf("%s is already a mount point (%s); %s", dir, fstype, ifMounted)
	}
	return nil
}

// fuseMountFailed explains a FUSE mount that failed.
func fuseMountFailed(dir string, err error) error {
	return fmt.Errorf("FUSE mount on %s failed: %w (needs /dev/fuse and fusermount3)", dir, err)
}

// stopSignals delivers Ctrl-C and SIGTERM, which stop a server, until
// stop is called.
func stopSignals() (sigs <-chan os.Signal, stop func()) {
	c := make(chan os.Signal, 2)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	return c, func() { signal.Stop(c) }
}

// serveUntilEnded waits until wait returns (the mount has ended and every
// request is answered) and returns ended's exit code. Each signal
// meanwhile goes to onSignal with its count, from 1; onSignal false gives
// up at once, with exitFailure.
func serveUntilEnded(wait func() error, sigs <-chan os.Signal, onSignal func(sig os.Signal, n int) bool, ended func() int) int {
	served := make(chan struct{})
	go func() {
		wait()
		close(served)
	}()
	for n := 1; ; n++ {
		select {
		case <-served:
			return ended()
		case sig := <-sigs:
			if !onSignal(sig, n) {
				return exitFailure
			}
		}
	}
}
