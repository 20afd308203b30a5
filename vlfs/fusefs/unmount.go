package fusefs

import (
	"errors"
	"time"

	"github.com/vlfs/vlfs/fuseserve"
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

// unmounter unmounts vlfs mounts with this package's sentinels.
func unmounter() fuseserve.Unmounter {
	return fuseserve.Unmounter{Busy: ErrBusy, NotMounted: ErrNotMounted, BusyRetries: busyRetries, BusyWait: busyWait}
}

// Unmount detaches the FUSE mount at dir with fusermount3 -u (-z when lazy:
// detach now, end the connection when the last user leaves). A mount point
// still busy after about a second gives an error wrapping ErrBusy, one
// that is not a mount point ErrNotMounted.
func Unmount(dir string, lazy bool) error { return unmounter().Unmount(dir, lazy) }

// Abort ends the server's connection at once through the fuse control file
// system (/sys/fs/fuse/connections): requests in flight fail, the mount
// point answers ENOTCONN until it is unmounted, and Wait returns. Use it
// when an unmount cannot complete.
func (s *Server) Abort() error { return unmounter().Abort(s.dir, s.connID) }
