package fusefs

import (
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/fuseserve"
)

// Defaults of Options.
const (
	DefaultReaders    = fuseserve.DefaultReaders
	DefaultMaxReaders = 32
	// DefaultConcurrencyWindow: see Options.ConcurrencyWindow.
	DefaultConcurrencyWindow = 10 * time.Millisecond
	DefaultEntryTimeout      = time.Second
	DefaultAttrTimeout       = time.Second
	DefaultStatsFile         = ".vlfs-stats"
	// DefaultMaxReadahead is offered to the kernel, which caps it at its own
	// limit; 0 would turn readahead off.
	DefaultMaxReadahead = 1 << 20
	// DefaultImageReadahead is how far ahead of a sequential reader the
	// image is hinted to the host (see imageReadahead): 16 MiB read a cold
	// image of scattered runs at 1.2-1.3 GB/s where 4 MiB read 0.94-1.1
	// (docs/peers.md).
	DefaultImageReadahead = 16 << 20
	// preferredIOSize is st_blksize, so that cp and stdio use buffers that
	// need one round trip each. It stays below maxIOSize: stdio sizes its
	// buffer by it for every open stream, small files included.
	preferredIOSize = 128 << 10
	// maxIOSize is the largest READ or WRITE the kernel sends: bazil's
	// maxWrite, 1 MiB with FUSE_MAX_PAGES (third_party/.../VLFS-PATCHES.md).
	maxIOSize = 1 << 20
)

// Options tune a mount. The zero value is the default.
type Options struct {
	// Readers (default 4) are kept waiting on the kernel for requests
	// while requests overlap; one waits while a single client thread makes
	// them all (see pool). FSName defaults to "vlfs". Image also names the
	// image in the repair hint of a damaged image's log lines.
	fuseserve.Options
	// MaxReaders caps the readers started while all are busy (default 32).
	MaxReaders int
	// ConcurrencyWindow is how long after a request from a second client
	// thread the readers stay in their concurrent regime (default 10 ms;
	// see clients). Tests lengthen it to be independent of scheduling.
	ConcurrencyWindow time.Duration
	// EntryTimeout and AttrTimeout are how long the kernel may cache names
	// and attributes (default 1 s each; negative means 0). Every change
	// goes through this mount, so the caches cannot go stale behind the
	// kernel's back.
	EntryTimeout, AttrTimeout time.Duration
	// Compactor is the background compactor the mount runs beside the file
	// system (nil: none): the stats file reports its counters.
	Compactor *compactor.Background
	// NoWritebackCache turns the kernel's writeback cache off: every
	// write(2) then becomes a FUSE write request.
	NoWritebackCache bool
	// ReadOnly mounts read-only (the vlfs.FS must be read-only too).
	ReadOnly bool
	// AllowDev and AllowSUID honour device files and set-id bits;
	// NonEmpty allows mounting over a non-empty directory.
	AllowDev, AllowSUID, NonEmpty bool
	// BlockDevice, if set, mounts as type fuseblk with this block device
	// (a loop device over the image, internal/loopdev) as the source, in
	// place of FSName. Only root may. The kernel then sends syncfs(2) and
	// sync(2) on to the server, which commits (docs/durability.md).
	BlockDevice string
	// MaxReadahead in bytes (default 1 MiB, capped by the kernel).
	MaxReadahead uint32
	// ImageReadahead is how far, in bytes, past each READ of a file read
	// sequentially the image ranges holding the file are hinted to the
	// host's page cache (posix_fadvise WILLNEED on Image); default 16 MiB,
	// negative turns it off (as does an empty Image). Turn it off for an
	// image opened with direct I/O, which the page cache does not serve.
	ImageReadahead int64
	// StatsFile names the virtual stats file in the root directory
	// (default ".vlfs-stats"); "-" disables it.
	StatsFile string
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	o.Options = o.Options.WithDefaults("vlfs")
	if o.MaxReaders < o.Readers {
		o.MaxReaders = max(DefaultMaxReaders, o.Readers)
	}
	if o.ConcurrencyWindow <= 0 {
		o.ConcurrencyWindow = DefaultConcurrencyWindow
	}
	o.EntryTimeout = timeout(o.EntryTimeout, DefaultEntryTimeout)
	o.AttrTimeout = timeout(o.AttrTimeout, DefaultAttrTimeout)
	if o.MaxReadahead == 0 {
		o.MaxReadahead = DefaultMaxReadahead
	}
	if o.ImageReadahead == 0 {
		o.ImageReadahead = DefaultImageReadahead
	}
	if o.StatsFile == "" {
		o.StatsFile = DefaultStatsFile
	}
	return o
}

func timeout(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// mountOptions are what bazil.org/fuse passes to fusermount3 and to INIT.
func (o Options) mountOptions() []fuse.MountOption {
	source := o.FSName
	if o.BlockDevice != "" {
		source = o.BlockDevice
	}
	opts := o.Options.MountOptions(source, "vlfs", o.MaxReadahead)
	if !o.NoWritebackCache && !o.ReadOnly {
		opts = append(opts, fuse.WritebackCache())
	}
	if o.BlockDevice != "" {
		opts = append(opts, fuse.Blkdev())
	}
	if !o.ReadOnly {
		// The server clears set-ID bits itself (killpriv.go), which spares
		// a GETXATTR security.capability round trip per write(2).
		opts = append(opts, fuse.HandleKillPriv())
	}
	flags := []struct {
		on  bool
		opt fuse.MountOption
	}{
		{o.ReadOnly, fuse.ReadOnly()},
		{o.AllowDev, fuse.AllowDev()},
		{o.AllowSUID, fuse.AllowSUID()},
		{o.NonEmpty, fuse.AllowNonEmptyMount()},
	}
	for _, f := range flags {
		if f.on {
			opts = append(opts, f.opt)
		}
	}
	return opts
}
