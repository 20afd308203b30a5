package fuseserve

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/vlfs/vlfs/internal/mountinfo"
)

// Unmounter unmounts and aborts one server's mounts. Busy and NotMounted
// are the server's own sentinels, which the errors wrap: callers test for
// them, and their texts reach users' messages.
type Unmounter struct {
	Busy, NotMounted error
	// BusyRetries is how many times a busy unmount is tried again,
	// BusyWait apart, before it is reported (0: at once).
	BusyRetries int
	BusyWait    time.Duration
}

// Unmount detaches the FUSE mount at dir with fusermount3 -u (-z when
// lazy: detach now, end the connection when the last user leaves). A mount
// point still busy after the retries gives an error wrapping u.Busy, one
// that is not a mount point u.NotMounted.
func (u Unmounter) Unmount(dir string, lazy bool) error {
	for i := 0; ; i++ {
		err := u.unmountOnce(dir, lazy)
		if !errors.Is(err, u.Busy) || i >= u.BusyRetries {
			return err
		}
		time.Sleep(u.BusyWait)
	}
}

func (u Unmounter) unmountOnce(dir string, lazy bool) error {
	args := []string{"-u"}
	if lazy {
		args = append(args, "-z")
	}
	out, err := exec.Command("fusermount3", append(args, "--", dir)...).CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	switch {
	case strings.Contains(msg, "busy"):
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, u.Busy)
	case strings.Contains(msg, "Invalid argument") || strings.Contains(msg, "not found in"):
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, u.NotMounted)
	case msg == "":
		msg = err.Error()
	}
	return fmt.Errorf("unmount %s: %s", dir, msg)
}

// Abort ends the connection connID (its name under
// /sys/fs/fuse/connections, "" if unknown) of the mount at dir at once:
// requests in flight fail, the mount point answers ENOTCONN until it is
// unmounted, and the server's readers return. Nothing is synced.
func (u Unmounter) Abort(dir, connID string) error {
	if connID == "" {
		return fmt.Errorf("abort %s: connection id unknown: %w", dir, u.NotMounted)
	}
	if err := mountinfo.AbortConn(connID); err != nil {
		return fmt.Errorf("abort %s: %w", dir, err)
	}
	return nil
}
