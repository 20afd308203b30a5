package fstest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The FUSE server does not ask for lock requests, so the kernel keeps
// flock and fcntl locks of a mount itself; applications rely on their
// POSIX semantics all the same.

// testFlock: flock locks belong to the open file description: two opens
// of a file conflict, a dup shares the lock, a close of the last
// descriptor releases it, and fcntl locks do not interact with them.
func testFlock(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	a, b := openRW(t, p), openRW(t, p)
	defer a.Close()
	mustDo(t, "flock a EX", unix.Flock(fd(a), unix.LOCK_EX))
	wantErrno(t, "flock b EX|NB", unix.Flock(fd(b), unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK)
	wantErrno(t, "flock b SH|NB", unix.Flock(fd(b), unix.LOCK_SH|unix.LOCK_NB), unix.EWOULDBLOCK)
	mustDo(t, "fcntl lock beside a flock", setLock(b, unix.F_OFD_SETLK, unix.F_WRLCK, 0, 0))
	mustDo(t, "flock a SH (convert)", unix.Flock(fd(a), unix.LOCK_SH))
	mustDo(t, "flock b SH|NB", unix.Flock(fd(b), unix.LOCK_SH|unix.LOCK_NB))
	wantErrno(t, "flock a EX|NB beside b's SH", unix.Flock(fd(a), unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK)
	mustDo(t, "close b", b.Close())
	mustDo(t, "flock a EX|NB after b closed", unix.Flock(fd(a), unix.LOCK_EX|unix.LOCK_NB))
	d, err := unix.Dup(fd(a))
	mustDo(t, "dup", err)
	mustDo(t, "flock UN through the dup", unix.Flock(d, unix.LOCK_UN))
	mustDo(t, "close dup", unix.Close(d))
	c := openRW(t, p)
	defer c.Close()
	mustDo(t, "flock c EX|NB after the dup unlocked", unix.Flock(fd(c), unix.LOCK_EX|unix.LOCK_NB))
}

// testFcntlLocks: open file description (OFD) locks of two opens of a file
// conflict by range and type, and with process-owned (F_SETLK) locks;
// F_OFD_GETLK names the conflicting lock; and closing any descriptor of
// the file drops the process's F_SETLK locks, but not OFD locks.
func testFcntlLocks(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	a, b := openRW(t, p), openRW(t, p)
	defer a.Close()
	defer b.Close()
	mustDo(t, "a write-locks [0,100)", setLock(a, unix.F_OFD_SETLK, unix.F_WRLCK, 0, 100))
	wantErrno(t, "b write-locks [50,60)", setLock(b, unix.F_OFD_SETLK, unix.F_WRLCK, 50, 10), unix.EAGAIN)
	wantErrno(t, "b read-locks [99,100)", setLock(b, unix.F_OFD_SETLK, unix.F_RDLCK, 99, 1), unix.EAGAIN)
	mustDo(t, "b write-locks [100,200)", setLock(b, unix.F_OFD_SETLK, unix.F_WRLCK, 100, 100))
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0, Start: 10, Len: 1}
	mustDo(t, "F_OFD_GETLK", unix.FcntlFlock(uintptr(fd(b)), unix.F_OFD_GETLK, &lk))
	if lk.Type != unix.F_WRLCK || lk.Start != 0 || lk.Len != 100 || lk.Pid != -1 {
		t.Fatalf("F_OFD_GETLK: type %d start %d len %d pid %d, want a's write lock on [0,100) pid -1",
			lk.Type, lk.Start, lk.Len, lk.Pid)
	}
	wantErrno(t, "F_SETLK against a's OFD lock", setLock(b, unix.F_SETLK, unix.F_RDLCK, 10, 10), unix.EAGAIN)
	mustDo(t, "a unlocks", setLock(a, unix.F_OFD_SETLK, unix.F_UNLCK, 0, 100))
	mustDo(t, "F_SETLK [0,50)", setLock(b, unix.F_SETLK, unix.F_WRLCK, 0, 50))
	wantErrno(t, "a's OFD lock against the process lock", setLock(a, unix.F_OFD_SETLK, unix.F_WRLCK, 0, 10), unix.EAGAIN)
	lk = unix.Flock_t{Type: unix.F_WRLCK, Start: 0, Len: 100}
	mustDo(t, "F_GETLK of the process's own lock", unix.FcntlFlock(uintptr(fd(a)), unix.F_GETLK, &lk))
	if lk.Type != unix.F_UNLCK {
		t.Fatalf("F_GETLK reports type %d: a process does not conflict with itself", lk.Type)
	}
	c := openRW(t, p)
	mustDo(t, "close another descriptor", c.Close())
	mustDo(t, "a locks [0,10) after the close dropped the process lock", setLock(a, unix.F_OFD_SETLK, unix.F_WRLCK, 0, 10))
	wantErrno(t, "b's OFD lock outlives the close", setLock(a, unix.F_OFD_SETLK, unix.F_WRLCK, 150, 1), unix.EAGAIN)
}

func setLock(f *os.File, cmd int, typ int16, start, n int64) error {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: start, Len: n}
	return unix.FcntlFlock(uintptr(fd(f)), cmd, &lk)
}

func openRW(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	return f
}
