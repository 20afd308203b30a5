package fusefs

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/vlfs/vlfs/internal/mountinfo"
)

// Sentinel errors of Unmount and Abort.
var (
	ErrBusy       = errors.New("fusefs: mount point is busy")
	ErrNotMounted = errors.New("fusefs: not mounted")
)

// busyRetries and busyWait: a mount point that is busy right after its
// last user closed its files is often busy only for a moment (a process
// still exiting, a file's last reference dropped a little later), so a
// busy unmount is retried for about a second before it is reported: one
// that stays busy has a real holder. (make test's umount of a mount it had
// just closed every file of failed busy under load.)
const (
	busyRetries = 10
	busyWait    = 100 * time.Millisecond
)

// Unmount detaches the FUSE mount at dir with fusermount3 -u (-z when lazy:
// detach now, end the connection when the last user leaves). A mount point
// still busy after about a second gives an error wrapping ErrBusy, one
// that is not a mount point ErrNotMounted.
func Unmount(dir string, lazy bool) error {
	for i := 0; ; i++ {
		err := unmountOnce(dir, lazy)
		if !errors.Is(err, ErrBusy) || i == busyRetries {
			return err
		}
		time.Sleep(busyWait)
	}
}

func unmountOnce(dir string, lazy bool) error {
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
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, ErrBusy)
	case strings.Contains(msg, "Invalid argument") || strings.Contains(msg, "not found in"):
		return fmt.Errorf("unmount %s: %s: %w", dir, msg, ErrNotMounted)
	case msg == "":
		msg = err.Error()
	}
	return fmt.Errorf("unmount %s: %s", dir, msg)
}

// Abort ends the server's connection at once through the fuse control file
// system (/sys/fs/fuse/connections): requests in flight fail, the mount
// point answers ENOTCONN until it is unmounted, and Wait returns. Use it
// when an unmount cannot complete.
func (s *Server) Abort() error {
	if s.connID == "" {
		return fmt.Errorf("abort %s: connection id unknown: %w", s.dir, ErrNotMounted)
	}
	if err := mountinfo.AbortConn(s.connID); err != nil {
		return fmt.Errorf("abort %s: %w", s.dir, err)
	}
	return nil
}
