package crashtest

import (
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// AllModes lists the recording modes (see Config.Modes).
func AllModes() []string { return []string{"buffered", "writeout", "evict"} }

// modeOptions sets the mount options of a mode.
func modeOptions(mode string, o *vlfs.Options) error {
	switch mode {
	case "buffered":
		return nil
	case "writeout":
		o.DirtyLimitBytes = 1
		return nil
	case "evict":
		o.DirtyLimitBytes, o.TinyCaches = 1, true
		return nil
	}
	return fmt.Errorf("mode %q (want one of %v): %w", mode, AllModes(), ErrBadWorkload)
}

// checkModes validates a list of modes.
func checkModes(ms []string) error {
	for _, m := range ms {
		if !slices.Contains(AllModes(), m) {
			return modeOptions(m, &vlfs.Options{})
		}
	}
	return nil
}

// Defaults of Config.
const (
	DefaultSubsets   = 8
	DefaultImageSize = 4 << 20
	DefaultDisk      = "st19101"
	DefaultSaveDir   = "testdata/crash"
)

// Config tunes a crash-test run. The zero value takes the defaults.
type Config struct {
	Subsets   int   // random subsets of unflushed writes per flush epoch (default 8)
	Seed      int64 // seeds the subset and torn-write choices
	Jobs      int   // parallel workers (default GOMAXPROCS)
	ImageSize int64 // bytes (default 4 MiB)
	// SaveDir is where failing workloads (shrunk) are saved; "" saves nothing.
	SaveDir string
	// NoShrink skips shrinking failures.
	NoShrink bool
	// Progress, if set, gets one status line now and then.
	Progress io.Writer
	// Only, if set, checks this one crash state (a device.State string)
	// instead of enumerating them: the replay of a saved failure.
	Only string
	// Modes are the mount configurations each workload is recorded in
	// (default both): "buffered" keeps file data in memory until a commit
	// (vlfs's defaults); "writeout" writes every file write to the volume
	// at once, uncommitted (a 1-byte dirty limit), so data blocks reach
	// the disk in the epochs before the commit that makes them reachable;
	// "evict" is writeout with one-entry metadata caches
	// (vlfs.Options.TinyCaches), so inode and indirect blocks are also
	// written out, superseded and freed between commits.
	Modes []string
	// wrap, if set, wraps the recording device under the file system
	// (tests use it to inject ordering bugs the harness must catch).
	wrap func(device.Device) device.Device
	// MaxFailures stops collecting (and shrinking) failures after this many
	// failing workloads (default 5); the counts stay exact.
	MaxFailures int
}

func (c Config) withDefaults() Config {
	if c.Subsets == 0 {
		c.Subsets = DefaultSubsets
	}
	if c.Jobs <= 0 {
		c.Jobs = runtime.GOMAXPROCS(0)
	}
	if c.ImageSize == 0 {
		c.ImageSize = DefaultImageSize
	}
	if len(c.Modes) == 0 {
		c.Modes = AllModes()
	}
	if c.MaxFailures <= 0 {
		c.MaxFailures = 5
	}
	return c
}
