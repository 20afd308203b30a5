package diskfs

import (
	"log"
	"time"

	"bazil.org/fuse"
)

// Defaults of Options and names of the two files.
const (
	DefaultReaders = 4
	DefaultFSName  = "vlfs-disk"
	// Subtype makes /proc/mounts show the mount as fuse.vlfs-disk.
	Subtype = "vlfs-disk"
	// DiskFile and StatsFile are the names in the mount point.
	DiskFile  = "disk"
	StatsFile = "stats"
	// attrValid is how long the kernel may cache attributes: the size
	// never changes and every write comes through this mount.
	attrValid = time.Second
	// ioSize is st_blksize of the disk file.
	ioSize = 4096
)

// Options tune a mount. The zero value is the default.
type Options struct {
	// Readers is the number of goroutines reading requests (default 4).
	Readers int
	// FSName is the source shown in /proc/mounts (default "vlfs-disk");
	// `vlfs disk serve` sets it to the image path.
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

func (o Options) withDefaults() Options {
	if o.Readers <= 0 {
		o.Readers = DefaultReaders
	}
	if o.FSName == "" {
		o.FSName = DefaultFSName
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	return o
}

// mountOptions are passed to fusermount3 and INIT. There is no writeback
// cache: each write(2) reaches the server before it returns, so a write
// beyond the end fails at once and fsync has nothing left in the kernel to
// flush first.
func (o Options) mountOptions() []fuse.MountOption {
	opts := []fuse.MountOption{
		fuse.FSName(o.FSName),
		fuse.Subtype(Subtype),
		fuse.DefaultPermissions(),
		fuse.MaxReadahead(1 << 20),
		fuse.AsyncRead(),
	}
	if o.AllowOther {
		opts = append(opts, fuse.AllowOther())
	}
	return opts
}
