package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vld/sched"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// mountArgs is a parsed `vlfs mount` command line.
type mountArgs struct {
	image, dir string
	opts       []string // -o values, in order
	clock      string
	batch      string
	batchSet   bool // --batch given: an in-place image batches too
	head       string
	compactor  string // on or off (mount_compactor.go)
	placement  string // "" or the placement the image must have (fixed at mkfs)
	background bool
	debug      bool
	// blkdev: mount as fuseblk over a loop device of the image, so that
	// sync(2) and syncfs(2) reach vlfs: "on" (-o blkdev: or fail), "off"
	// (-o noblkdev), "" (whenever root can; mount_blkdev.go).
	blkdev        string
	logFile       string
	installHelper string
	cpuProfile    string // --cpuprofile: the daemon's CPU profile, written at unmount
	// writeback: the image's early writeback interval in bytes (-o
	// writeback=SIZE; device.FileOptions.WritebackBytes)
	writeback int64

	fuse  fusefs.Options
	fsOpt vlfs.Options
	// vol is how the volume under the file system runs (clock, batching,
	// head model, log window): the command opens it and hands it to vlfs.
	vol vld.Options
}

// optionList collects repeated -o flags.
type optionList []string

func (l *optionList) String() string     { return strings.Join(*l, ",") }
func (l *optionList) Set(s string) error { *l = append(*l, s); return nil }

func runMount(args []string, stdout, stderr io.Writer) int {
	a, code := parseMountArgs(args, stderr)
	if code != exitOK {
		return code
	}
	if a.installHelper != "" {
		return installMountHelper(a.installHelper, stdout, stderr)
	}
	if a.background {
		return mountBackground(a, stdout, stderr)
	}
	return mountForeground(a, stdout, stderr)
}

// parseMountArgs accepts flags before, between and after the two operands,
// as mount(8) and mount.fuse3 put -o after them.
func parseMountArgs(args []string, stderr io.Writer) (*mountArgs, int) {
	a := &mountArgs{}
	fl := flag.NewFlagSet("mount", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Var((*optionList)(&a.opts), "o", "comma-separated mount options (see docs/mounting.md): ro, allow_other, clock=real, ...")
	fl.StringVar(&a.clock, "clock", "virtual", "simulated disk time: virtual (nothing sleeps) or real (each request sleeps its service time)")
	fl.StringVar(&a.batch, "batch", "auto", "write batching: auto (c* blocks, reads first between batches), auto-track, segment, fifo, or N blocks; an in-place image serves FIFO unless this is given")
	fl.StringVar(&a.head, "head", "sim", "head model: sim (the simulated head) or profile:FILE (a profile from vlfs profile)")
	fl.StringVar(&a.placement, "placement", "", "check that the image was made with this placement (eager, inplace, lfs, range); placement is fixed at mkfs, a mismatch is refused")
	fl.StringVar(&a.compactor, "compactor", "on", "idle-time compactor: on or off (docs/compactor.md)")
	fl.BoolVar(&a.background, "background", false, "run as a daemon: return once the mount is ready")
	fl.BoolVar(&a.debug, "debug", false, "log every FUSE request (to stderr or --log)")
	fl.StringVar(&a.logFile, "log", "", "append the daemon's log to this file (default: stderr; discarded with --background)")
	fl.StringVar(&a.cpuProfile, "cpuprofile", "", "write a CPU profile (go tool pprof) of the daemon to this file, from mount to unmount")
	fl.StringVar(&a.installHelper, "install-helper", "", "write DIR/mount.fuse.vlfs so that mount(8) and /etc/fstab can mount type fuse.vlfs, and exit")
	for _, name := range []string{"n", "s", "v"} { // mount(8) passes these to helpers
		fl.Bool(name, false, "ignored (mount(8) compatibility)")
	}
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs mount [-o OPTIONS] [--background] [--clock virtual|real] IMAGE MOUNTPOINT")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return nil, exitUsage
	}
	if a.installHelper != "" {
		return a, exitOK
	}
	if len(pos) != 2 {
		fl.Usage()
		return nil, exitUsage
	}
	a.image, a.dir = pos[0], pos[1]
	fl.Visit(func(f *flag.Flag) { a.batchSet = a.batchSet || f.Name == "batch" })
	if _, err := vld.ParsePlacement(a.placement); err != nil {
		fmt.Fprintf(stderr, "vlfs mount: --placement: %v\n", err)
		return nil, exitUsage
	}
	if err := a.applyOptions(); err != nil {
		fmt.Fprintf(stderr, "vlfs mount: %v\n", err)
		return nil, exitUsage
	}
	return a, exitOK
}

// parseInterspersed parses flags anywhere among the operands.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		if fl.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fl.Arg(0))
		args = fl.Args()[1:]
	}
}

// applyOptions turns -o and the flags into file-system and FUSE options.
func (a *mountArgs) applyOptions() error {
	abs, err := filepath.Abs(a.image)
	if err != nil {
		return err
	}
	a.fuse = fusefs.Options{Options: fuseserve.Options{FSName: abs, Image: abs}}
	rest, err := fusefs.ParseOptions(strings.Join(a.opts, ","), &a.fuse)
	if err != nil {
		return err
	}
	// The kernel's writeback cache holds large writes already.
	a.fsOpt.WriteThroughBytes = vlfs.DefaultWriteThrough
	a.writeback = device.DefaultWritebackBytes
	for _, o := range rest {
		key, val, _ := strings.Cut(o, "=")
		switch key {
		case "clock":
			a.clock = val
		case "debug":
			a.debug = true
		case "blkdev":
			a.blkdev = "on"
		case "noblkdev":
			a.blkdev = "off"
		case "log":
			a.logFile = val
		case "compactor":
			a.compactor = val
		case "commit":
			// like ext4's commit=: the longest an unforced change waits
			// for the background commit
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f > 0) || f > 1e6 {
				return fmt.Errorf("-o %s: want seconds > 0 (as commit=5 or commit=0.5)", o)
			}
			a.fsOpt.FlushInterval = time.Duration(f * float64(time.Second))
		case "dirty_limit":
			n, err := parseSize(val)
			if err != nil || n <= 0 {
				return fmt.Errorf("-o %s: want a size > 0 (as dirty_limit=64MiB)", o)
			}
			a.fsOpt.DirtyLimitBytes = n
		case "writeback":
			n, err := parseSize(val)
			if err != nil || n < 0 {
				return fmt.Errorf("-o %s: want a size >= 0 (as writeback=8MiB; 0 leaves it to the kernel)", o)
			}
			a.writeback = n
		case "write_through":
			n, err := parseSize(val)
			if err != nil || n < 0 {
				return fmt.Errorf("-o %s: want a size >= 0 (as write_through=64KiB; 0 buffers every write)", o)
			}
			a.fsOpt.WriteThroughBytes = n
		case "log_window":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f > 0 && f <= 1) {
				return fmt.Errorf("-o %s: want a fraction of the disk's tracks in (0, 1] (as log_window=0.25; default 1/16)", o)
			}
			a.vol.LogWindow = f
		default:
			return fmt.Errorf("unknown mount option %q (see docs/mounting.md)", o)
		}
	}
	switch a.clock {
	case "virtual":
		a.vol.Clock = vld.ClockVirtual
	case "real":
		a.vol.Clock = vld.ClockReal
	default:
		return fmt.Errorf("--clock %q: want virtual or real", a.clock)
	}
	a.fsOpt.ReadOnly, a.vol.ReadOnly = a.fuse.ReadOnly, a.fuse.ReadOnly
	if err := checkCompactorFlag(a.compactor); err != nil {
		return err
	}
	b, err := sched.ParseBatch(a.batch)
	if err != nil {
		return fmt.Errorf("--batch: %w", err)
	}
	a.vol.Batch, a.vol.BatchInPlace = b, a.batchSet
	if a.vol.Head, err = parseHead(a.head); err != nil {
		return err
	}
	return nil
}

// parseHead reads --head: "sim" or "profile:FILE".
func parseHead(s string) (*profile.Profile, error) {
	if s == "" || s == "sim" {
		return nil, nil
	}
	file, ok := strings.CutPrefix(s, "profile:")
	if !ok {
		return nil, fmt.Errorf("--head %q: want sim or profile:FILE", s)
	}
	p, err := profile.Load(file)
	if err != nil {
		return nil, fmt.Errorf("--head: %w", err)
	}
	return p, nil
}

// openImage opens the image's volume as the flags say, the file system on
// it and the compactor beside it, explaining the failures a user can fix.
func openImage(a *mountArgs, logf func(string, ...any)) (*mountedImage, error) {
	if _, err := os.Stat(a.image); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("image %s does not exist; create it with: vlfs mkfs %s", a.image, a.image)
	}
	dev, err := device.OpenFile(a.image, device.FileOptions{ReadOnly: a.fsOpt.ReadOnly, WritebackBytes: a.writeback})
	if errors.Is(err, device.ErrLocked) {
		return nil, fmt.Errorf("%s is already in use (mounted, or being checked by fsck); an image can be mounted only once at a time", a.image)
	}
	if err != nil {
		return nil, err
	}
	o, vo := a.fsOpt, a.vol
	o.Logf, vo.Logf = logf, logf
	vol, err := vld.Open(dev, vo)
	if err != nil {
		dev.Close()
		return nil, explainMountError(a.image, vlfs.VolumeError(err))
	}
	fsys, err := vlfs.Open(vol, o)
	if err != nil {
		vol.Close()
		return nil, explainMountError(a.image, err)
	}
	m := &mountedImage{fs: fsys}
	if err := checkPlacement(a, fsys); err != nil {
		m.close()
		return nil, err
	}
	if m.compactor, err = startCompactor(a, fsys); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// mountedImage is a mounted file system and the compactor the mount runs
// beside it (nil: off).
type mountedImage struct {
	fs        *vlfs.FS
	compactor *compactor.Background
}

// close stops the compactor, then closes the file system (and the volume
// and the image under it).
func (m *mountedImage) close() error {
	if m.compactor != nil {
		if err := m.compactor.Stop(); err != nil {
			m.fs.Logf("vlfs: close: %v", err)
		}
	}
	return m.fs.Close()
}

func explainMountError(img string, err error) error {
	switch {
	case errors.Is(err, vlfs.ErrNeedsRepair):
		return fmt.Errorf("%s needs repair: run vlfs fsck --repair %s (%v)", img, img, err)
	case errors.Is(err, vld.ErrNotFormatted):
		return fmt.Errorf("%s is not a vlfs image; format it with: vlfs mkfs %s", img, img)
	case errors.Is(err, vlfs.ErrNotVLFS):
		return fmt.Errorf("%s is not a vlfs image (%v)", img, err)
	case errors.Is(err, vlfs.ErrCorrupt), errors.Is(err, vld.ErrCorrupt):
		return fmt.Errorf("%s is damaged: check it with vlfs fsck %s, repair with vlfs fsck --repair %s (%v)", img, img, img, err)
	}
	return fmt.Errorf("mounting %s: %w", img, err)
}

// mountedMessage tells the user what to do with the new mount.
func mountedMessage(w io.Writer, a *mountArgs, pid int, foreground bool) {
	fmt.Fprintf(w, "vlfs: %s mounted on %s (clock %s, pid %d)\n", a.image, a.dir, a.clock, pid)
	fmt.Fprintf(w, "  use it as any directory:  ls %s\n", a.dir)
	fmt.Fprintf(w, "  live counters:            vlfs stats %s\n", a.dir)
	if foreground {
		fmt.Fprintf(w, "  unmount:                  vlfs umount %s   (or Ctrl-C here)\n", a.dir)
	} else {
		fmt.Fprintf(w, "  unmount:                  vlfs umount %s\n", a.dir)
	}
}

// helperScript is installed as mount.fuse.vlfs: mount(8) runs it for
// fstab entries of type fuse.vlfs as "mount.fuse.vlfs IMAGE DIR -o OPTS".
// mount(8) runs helpers with an empty environment, hence PATH (for
// fusermount3). Its mounts are plain fuse.vlfs, as the fstab entry says,
// unless the entry's options ask for blkdev (later options win).
const helperScript = `#!/bin/sh
# mount(8) helper for file systems of type fuse.vlfs (written by vlfs mount --install-helper).
PATH=${PATH:-` + defaultPath + `}
export PATH
exec %q mount --background -o noblkdev "$@"
`

// defaultPath is used when vlfs runs without PATH (as a mount(8) helper).
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func installMountHelper(dir string, stdout, stderr io.Writer) int {
	exe, err := vlfsBinary()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mount: finding the vlfs binary: %v\n", err)
		return exitFailure
	}
	p := filepath.Join(dir, "mount.fuse.vlfs")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(helperScript, exe)), 0o755); err != nil {
		fmt.Fprintf(stderr, "vlfs mount: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "vlfs: wrote %s; /etc/fstab entries of type fuse.vlfs now mount with %s\n", p, exe)
	return exitOK
}
