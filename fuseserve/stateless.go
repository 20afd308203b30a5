package fuseserve

import (
	"syscall"

	"bazil.org/fuse"
)

// AnswerStateless answers the requests that both servers answer alike for a
// node with nothing behind it (diskfs's nodes, fusefs's stats file): FORGET
// (no node table to trim), FLUSH (close(2) is no durability point; fsync
// is), ACCESS (default_permissions: the kernel checks modes) and INTERRUPT
// (the request finishes quickly; nothing to cancel) succeed, LISTXATTR
// lists none and GETXATTR finds none. answered is false for any other
// request, which the server answers; err, as for a handler, is for Answer
// to answer.
func AnswerStateless(req fuse.Request) (answered bool, err error) {
	switch r := req.(type) {
	case *fuse.ForgetRequest:
		r.Respond()
	case *fuse.FlushRequest:
		r.Respond()
	case *fuse.AccessRequest:
		r.Respond()
	case *fuse.InterruptRequest:
		r.Respond()
	case *fuse.ListxattrRequest:
		r.Respond(&fuse.ListxattrResponse{})
	case *fuse.GetxattrRequest:
		return true, syscall.ENODATA
	default:
		return false, nil
	}
	return true, nil
}
