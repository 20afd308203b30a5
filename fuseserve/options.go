package fuseserve

import (
	"log"

	"bazil.org/fuse"
)

// DefaultReaders is the default of Options.Readers.
const DefaultReaders = 4

// Options are what every server's mount takes; each server embeds them in
// its own. The zero value is the default.
type Options struct {
	// Readers is the number of goroutines waiting on the kernel for
	// requests (default 4). A server may keep fewer waiting while one
	// client thread makes every request, and start more while all are
	// busy (vlfs/fusefs does, up to its MaxReaders).
	Readers int
	// FSName is the source shown in /proc/mounts (each server has its
	// default); the commands set it to the image path.
	FSName string
	// Image is reported in the stats file (informational).
	Image string
	// AllowOther lets other users in (root, or user_allow_other in
	// /etc/fuse.conf).
	AllowOther bool
	// Debug, when set, receives one line per request and per answer.
	Debug func(msg string)
	// Logf receives errors that are not the caller's fault (default: the
	// standard logger).
	Logf func(format string, args ...any)
}

// WithDefaults fills the zero fields, with fsname as the default FSName.
func (o Options) WithDefaults(fsname string) Options {
	if o.Readers <= 0 {
		o.Readers = DefaultReaders
	}
	if o.FSName == "" {
		o.FSName = fsname
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	return o
}

// MountOptions are the mount options every server passes to fusermount3
// and INIT: source as the mount's source, the subtype /proc/mounts shows
// after "fuse.", permission checks left to the kernel, maxReadahead bytes
// of read-ahead, asynchronous reads, and AllowOther. A server appends its
// own.
func (o Options) MountOptions(source, subtype string, maxReadahead uint32) []fuse.MountOption {
	opts := []fuse.MountOption{
		fuse.FSName(source),
		fuse.Subtype(subtype),
		// Permission checks are the kernel's (neither server makes them).
		fuse.DefaultPermissions(),
		fuse.MaxReadahead(maxReadahead),
		fuse.AsyncRead(),
	}
	if o.AllowOther {
		opts = append(opts, fuse.AllowOther())
	}
	return opts
}
