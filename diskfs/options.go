package diskfs

import (
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
)

// Defaults of Options and names of the two files.
const (
	DefaultReaders = fuseserve.DefaultReaders
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
	// maxReadahead is offered to the kernel, which caps it at its own
	// limit.
	maxReadahead = 1 << 20
)

// Options tune a mount: those every FUSE server of the project takes, and
// nothing else. The zero value is the default: 4 readers, FSName
// "vlfs-disk" (`vlfs disk serve` sets it to the image path).
type Options = fuseserve.Options

func withDefaults(o Options) Options { return o.WithDefaults(DefaultFSName) }

// mountOptions are passed to fusermount3 and INIT. There is no writeback
// cache: each write(2) reaches the server before it returns, so a write
// beyond the end fails at once and fsync has nothing left in the kernel to
// flush first.
func mountOptions(o Options) []fuse.MountOption {
	return o.MountOptions(o.FSName, Subtype, maxReadahead)
}
