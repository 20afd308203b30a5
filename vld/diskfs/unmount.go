package diskfs

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Unmount unmounts the diskfs mount at dir with fusermount3 -u. It refuses,
// with an error wrapping ErrBusy that names every holder and how to release
// it, while anything still uses dir/disk: a loop device, a file system
// mounted on top, an open descriptor. Unmounting then would leave that file
// system writing to a disk that is gone. A directory that is not a mount
// point gives ErrNotMounted.
func Unmount(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, mounted, err := MountType(abs); err != nil {
		return err
	} else if !mounted {
		return fmt.Errorf("unmount %s: %w", abs, ErrNotMounted)
	}
	disk := filepath.Join(abs, DiskFile)
	hs, err := Holders(disk)
	if err != nil {
		return err
	}
	if len(hs) > 0 {
		return fmt.Errorf("refusing to unmount %s: %s: %w", abs, describeHolders(disk, hs), ErrBusy)
	}
	return fusermount(abs)
}

// fusermount runs fusermount3 -u; a busy mount point (a working directory
// inside, say) gives ErrBusy.
func fusermount(dir string) error {
	out, err := exec.Command("fusermount3", "-u", "--", dir).CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	switch {
	case strings.Contains(msg, "busy"):
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, ErrBusy)
	case strings.Contains(msg, "not found in") || strings.Contains(msg, "Invalid argument"):
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, ErrNotMounted)
	case msg == "":
		msg = err.Error()
	}
	return fmt.Errorf("unmount %s: %s", dir, msg)
}
