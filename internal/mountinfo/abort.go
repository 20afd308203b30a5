package mountinfo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ConnDir is where the fuse control file system (fusectl) lists the
// kernel's FUSE connections.
const ConnDir = "/sys/fs/fuse/connections"

// AbortConn ends FUSE connection connID at once by writing to its abort
// file under ConnDir. Fresh machines often boot without fusectl mounted
// (systemd mounts it, containers usually do not); AbortConn then mounts it
// itself, which needs the same privilege as writing the abort file.
func AbortConn(connID string) error {
	if connID == "" {
		return errors.New("connection id unknown")
	}
	p := filepath.Join(ConnDir, connID, "abort")
	err := os.WriteFile(p, []byte("1"), 0)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if merr := mountFusectl(); merr != nil {
		return fmt.Errorf("%w; mounting fusectl on %s: %v", err, ConnDir, merr)
	}
	return os.WriteFile(p, []byte("1"), 0)
}

// mountFusectl mounts the fuse control file system on ConnDir unless the
// mount table already shows it there.
func mountFusectl() error {
	if t, ok, err := Type(ConnDir); err == nil && ok && t == "fusectl" {
		return nil
	}
	return syscall.Mount("fusectl", ConnDir, "fusectl", 0, "")
}
