// Package fusepoll switches FUSE_POLL off on a FUSE mount served by the
// calling process.
//
// Go registers every file it opens with its netpoller (epoll_ctl), and on a
// FUSE file that sends FUSE_POLL to the server. The runtime makes that
// epoll_ctl call without leaving its P, so when the server runs in the same
// process (tests, library users) a garbage-collection stop-the-world that
// starts while the request is pending can never complete: the reader that
// would answer needs a P, and the P is stuck in the kernel waiting for the
// answer. Worse, the waiting thread sleeps uninterruptibly, and the process
// holds the FUSE connection open: even SIGKILL leaves a zombie that never
// dies, and whatever waits for it (go test, CI) waits for ever. The kernel
// stops sending FUSE_POLL on a connection once one has been answered
// ENOSYS; Disable makes that happen at mount time, from a plain system call,
// which does release its P.
//
// It owns no state and takes no locks.
package fusepoll

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// Disable opens path, a file on a freshly mounted FUSE file system whose
// server answers FUSE_POLL with ENOSYS, and adds it to a throw-away epoll
// set, so that the kernel asks the server once, is told ENOSYS, and never
// asks again.
func Disable(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s to switch FUSE_POLL off: %w", path, err)
	}
	defer syscall.Close(fd)
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	// Not syscall.EpollCtl: it is a raw system call, which keeps its P and
	// so could deadlock exactly as described above. The result does not
	// matter; the FUSE_POLL it causes does.
	syscall.Syscall6(syscall.SYS_EPOLL_CTL, uintptr(ep), syscall.EPOLL_CTL_ADD, uintptr(fd),
		uintptr(unsafe.Pointer(&ev)), 0, 0)
	runtime.KeepAlive(&ev)
	return nil
}
