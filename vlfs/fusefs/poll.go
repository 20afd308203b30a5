package fusefs

import (
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"
)

// disablePoll makes the kernel stop sending FUSE_POLL on this mount.
//
// Go registers every file it opens with its netpoller (epoll_ctl), and on a
// FUSE file that sends FUSE_POLL to the server. The runtime makes that
// epoll_ctl call without leaving its P, so when the server runs in the
// same process (tests, library users) a garbage-collection stop-the-world
// that starts while the request is pending can never complete: the reader
// that would answer needs a P, and the P is stuck in the kernel waiting for
// the answer. The kernel stops sending FUSE_POLL once it has been answered
// ENOSYS; this makes that happen at mount time, from a plain system call
// (which does release its P), on the stats file.
func (s *Server) disablePoll() {
	if s.opt.StatsFile == statsDisabled {
		return
	}
	fd, err := syscall.Open(filepath.Join(s.dir, s.opt.StatsFile), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		s.opt.Logf("fusefs: opening the stats file to switch FUSE_POLL off: %v", err)
		return
	}
	defer syscall.Close(fd)
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	// Not syscall.EpollCtl: it is a raw system call, which keeps its P
	// and so could deadlock exactly as described above. The result does
	// not matter; the FUSE_POLL it causes does.
	syscall.Syscall6(syscall.SYS_EPOLL_CTL, uintptr(ep), syscall.EPOLL_CTL_ADD, uintptr(fd),
		uintptr(unsafe.Pointer(&ev)), 0, 0)
	runtime.KeepAlive(&ev)
}
