package device

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/loopdev"
)

// How an image is kept to one opener (docs/mounting.md, "How the image is
// protected"). An image can be named many ways: its path, a hard link or a
// symlink, the loop device a fuseblk mount put over it, or a loop device
// someone attached by hand. Every way must meet the same lock, so:
//
//   - a regular file is flocked (exclusive, or shared when read-only); a
//     flock belongs to the inode's open file description, so hard links and
//     symlinks meet it;
//   - a block device is opened with O_EXCL, the kernel's exclusive claim,
//     which a mounted file system (a fuseblk mount's loop device, ext4 on
//     /dev/sdb) already holds, so a second opener gets EBUSY;
//   - a loop device additionally locks its backing file as above (and,
//     if that is a loop device too, its backing file in turn), so the image
//     opened by path and the same image opened through any loop device
//     meet one flock.
//
// The locks are held until the File is closed.

// maxLoopDepth bounds a chain of loop devices over loop devices.
const maxLoopDepth = 8

// lockWait bounds how long a held lock is retried. flock locks and O_EXCL
// claims belong to the open file description, and a child forked by any
// goroutine of this process holds a copy of every descriptor until its exec
// closes them (O_CLOEXEC), so an image closed and reopened while another
// goroutine starts a process (fusermount3, fio) can find its own released
// lock still held for that moment: a flaky "another process holds it" in
// parallel tests. A lock held for real is still refused, after lockWait.
const lockWait = 250 * time.Millisecond

// retryHeld calls try until it stops reporting a held lock (held true) or
// lockWait has passed; it returns try's last error.
func retryHeld(try func() (held bool, err error)) error {
	deadline := time.Now().Add(lockWait)
	for pause := time.Millisecond; ; {
		held, err := try()
		if !held || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// flock takes a non-blocking flock. flock locks belong to the open file
// description, so two OpenFile calls in one process conflict just as two
// processes do.
func flock(f *os.File, path string, shared bool) error {
	how := unix.LOCK_EX | unix.LOCK_NB
	if shared {
		how = unix.LOCK_SH | unix.LOCK_NB
	}
	return retryHeld(func() (bool, error) {
		for {
			err := unix.Flock(int(f.Fd()), how)
			switch {
			case err == nil:
				return false, nil
			case err == unix.EINTR:
				continue
			case err == unix.EWOULDBLOCK:
				return true, fmt.Errorf("lock %s: another process or handle holds it: %w", path, ErrLocked)
			default:
				return false, fmt.Errorf("lock %s: %w", path, err)
			}
		}
	})
}

// isBlockDevice reports whether path names a block device (following
// symlinks); false when it cannot be stat'ed, which the open then reports.
func isBlockDevice(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0
}

// openExclusive opens a block device with O_EXCL added to flag, so that
// the kernel refuses it while another holder (a mount, another exclusive
// opener) claims the device, with an error wrapping ErrLocked.
func openExclusive(path string, flag int, perm os.FileMode) (*os.File, error) {
	var f *os.File
	err := retryHeld(func() (bool, error) {
		var err error
		f, err = os.OpenFile(path, flag|unix.O_EXCL, perm)
		if errors.Is(err, unix.EBUSY) {
			return true, fmt.Errorf("open %s: the device is in use (mounted, or open exclusively by another process): %w", path, ErrLocked)
		}
		return false, err
	})
	return f, err
}

// claimOpened takes the lock that belongs to f, already opened from path
// (with O_EXCL if it is a block device), and returns the extra descriptors
// that hold the locks of what lies behind it (a loop device's backing
// file). The caller closes them when it closes f.
func claimOpened(f *os.File, path string, shared bool, depth int) ([]*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil, flock(f, path, shared)
	case unix.S_IFBLK:
		return claimBehindLoop(f, path, st.Rdev, shared, depth)
	}
	return nil, nil // sizeOf refuses other kinds with a clear message
}

// claimBehindLoop locks the backing file of loop device f (nothing when f
// is another kind of block device: its O_EXCL claim is the whole lock).
func claimBehindLoop(f *os.File, path string, rdev uint64, shared bool, depth int) ([]*os.File, error) {
	backing, ok, err := loopBacking(f, path, rdev)
	if err != nil || !ok {
		return nil, err
	}
	if depth >= maxLoopDepth {
		return nil, fmt.Errorf("lock %s: loop devices nested more than %d deep: %w", path, maxLoopDepth, ErrNoLock)
	}
	open := os.OpenFile
	if isBlockDevice(backing.path) {
		open = openExclusive
	}
	bf, err := open(backing.path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("lock %s: its backing file %s: %w", path, backing.path, errors.Join(err, ErrNoLock))
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(bf.Fd()), &st); err != nil || st.Dev != backing.dev || st.Ino != backing.ino {
		bf.Close()
		return nil, fmt.Errorf("lock %s: its backing file is no longer at %s (moved or replaced): %w", path, backing.path, ErrNoLock)
	}
	more, err := claimOpened(bf, backing.path, shared, depth+1)
	if err != nil {
		bf.Close()
		return nil, fmt.Errorf("%s is a loop device over %s: %w", path, backing.path, err)
	}
	return append([]*os.File{bf}, more...), nil
}

// backingFile names what a loop device reads and writes.
type backingFile struct {
	path     string
	dev, ino uint64
}

// loopBacking returns the backing file of f if it is a bound loop device;
// ok is false for any other block device.
func loopBacking(f *os.File, path string, rdev uint64) (backingFile, bool, error) {
	name, err := loopdev.BackingOf(rdev)
	if err == nil && name == "" {
		return backingFile{}, false, nil // not a loop device, or one with nothing attached
	}
	if err != nil {
		return backingFile{}, false, fmt.Errorf("lock %s: %w", path, errors.Join(err, ErrNoLock))
	}
	info, err := unix.IoctlLoopGetStatus64(int(f.Fd()))
	if errors.Is(err, unix.ENXIO) {
		return backingFile{}, false, nil // detached since
	}
	if err != nil {
		return backingFile{}, false, fmt.Errorf("lock %s: LOOP_GET_STATUS64: %w", path, errors.Join(err, ErrNoLock))
	}
	if strings.HasSuffix(name, " (deleted)") || !filepath.IsAbs(name) {
		return backingFile{}, false, fmt.Errorf("lock %s: it is a loop device over %q, which can no longer be opened by name to lock it: %w", path, name, ErrNoLock)
	}
	return backingFile{path: name, dev: info.Device, ino: info.Inode}, true, nil
}

// closeAll closes the lock-holding descriptors.
func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
