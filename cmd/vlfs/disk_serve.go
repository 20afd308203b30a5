package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/vlfs/vlfs/diskfs"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// diskServeArgs is a parsed `vlfs disk serve` command line.
type diskServeArgs struct {
	img, dir   string
	diskName   string // "" unless --disk was given
	placement  string // "" unless --placement was given
	clock      vld.Clock
	clockName  string
	allowOther bool
	debug      bool
}

func runDiskServe(args []string, stdout, stderr io.Writer) int {
	a, code := parseDiskServe(args, stderr)
	if a == nil {
		return code
	}
	return a.serve(stdout, stderr)
}

func parseDiskServe(args []string, stderr io.Writer) (*diskServeArgs, int) {
	a := &diskServeArgs{}
	fl := flag.NewFlagSet("disk serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&a.diskName, "disk", "", "check that the image simulates this disk (the model is fixed at create)")
	fl.StringVar(&a.placement, "placement", "", "check that the image has this placement, eager or inplace (fixed at create)")
	fl.StringVar(&a.clockName, "clock", "virtual", "simulated disk time: virtual (nothing sleeps) or real (each request sleeps its service time)")
	fl.BoolVar(&a.allowOther, "allow-other", false, "let other users use the mount (root, or user_allow_other in /etc/fuse.conf)")
	fl.BoolVar(&a.debug, "debug", false, "log every FUSE request to stderr")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs disk serve [--disk PRESET|FILE] [--clock virtual|real] [--placement eager|inplace] IMAGE MOUNTPOINT")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return nil, exitUsage
	}
	if len(pos) != 2 {
		fl.Usage()
		return nil, exitUsage
	}
	a.img, a.dir = pos[0], pos[1]
	switch a.clockName {
	case "virtual":
		a.clock = vld.ClockVirtual
	case "real":
		a.clock = vld.ClockReal
	default:
		fmt.Fprintf(stderr, "vlfs disk serve: --clock %q: want virtual or real\n", a.clockName)
		return nil, exitUsage
	}
	if _, err := vld.ParsePlacement(a.placement); err != nil {
		fmt.Fprintf(stderr, "vlfs disk serve: --placement %q: want eager or inplace\n", a.placement)
		return nil, exitUsage
	}
	return a, exitOK
}

// errMismatch marks a --disk or --placement that disagrees with the image:
// a usage error.
var errMismatch = errors.New("does not match the image")

// serve opens, mounts and serves until unmounted.
func (a *diskServeArgs) serve(stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "vlfs disk serve: %v\n", err)
		if errors.Is(err, errMismatch) {
			return exitUsage
		}
		return exitFailure
	}
	dir, err := filepath.Abs(a.dir)
	if err != nil {
		return fail(err)
	}
	if err := checkMountPoint(dir, "vlfs disk umount", "choose another directory"); err != nil {
		return fail(err)
	}
	d, err := a.open()
	if err != nil {
		return fail(err)
	}
	logger := log.New(stderr, "vlfs disk: ", log.LstdFlags)
	o := diskfs.Options{FSName: a.absImage(), Image: a.absImage(), AllowOther: a.allowOther, Logf: logger.Printf}
	if a.debug {
		o.Debug = func(m string) { logger.Print(m) }
	}
	ld := diskfs.NewLogical(d)
	srv, err := diskfs.Mount(dir, ld, o)
	if err != nil {
		d.Close()
		return fail(fuseMountFailed(dir, err))
	}
	sigs, stopSigs := stopSignals()
	defer stopSigs()
	a.servingMessage(stdout, srv, d)
	return serveDiskUntilUnmounted(srv, ld, sigs, stderr)
}

func (a *diskServeArgs) absImage() string {
	abs, err := filepath.Abs(a.img)
	if err != nil {
		return a.img
	}
	return abs
}

// open opens the image (refusing one already served) and checks --disk and
// --placement against it.
func (a *diskServeArgs) open() (*logical.Disk, error) {
	if _, err := os.Stat(a.img); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("image %s does not exist; create it with: vlfs disk create --size 1GiB %s", a.img, a.img)
	}
	dev, err := device.OpenFile(a.img, device.FileOptions{})
	if errors.Is(err, device.ErrLocked) {
		return nil, fmt.Errorf("%s is already in use (served by another vlfs disk serve, or open in another vlfs command); an image can be served only once at a time", a.img)
	}
	if err != nil {
		return nil, err
	}
	d, err := logical.Open(dev, vld.Options{Clock: a.clock})
	if err != nil {
		dev.Close()
		return nil, explainDiskOpenError(a.img, err)
	}
	if err := a.checkImage(d); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// checkImage compares --disk and --placement with what the image holds.
func (a *diskServeArgs) checkImage(d *logical.Disk) error {
	if a.placement != "" {
		want, _ := vld.ParsePlacement(a.placement)
		if want != d.Placement() {
			return fmt.Errorf("--placement %s: %s was created with --placement %s, and placement is fixed when the image is created (make another with: vlfs disk create --placement %s --size SIZE IMAGE): %w",
				want, a.img, d.Placement(), want, errMismatch)
		}
	}
	if a.diskName != "" {
		m, err := disk.Resolve(a.diskName)
		if err != nil {
			return fmt.Errorf("--disk: %v: %w", err, errMismatch)
		}
		if have := d.Volume().Model().Name; m.Name != have {
			return fmt.Errorf("--disk %s: %s simulates the %s disk (the model is fixed when the image is created): %w", m.Name, a.img, have, errMismatch)
		}
	}
	return nil
}

func explainDiskOpenError(img string, err error) error {
	switch {
	case errors.Is(err, vld.ErrNotFormatted):
		return fmt.Errorf("%s is not a vld image; create one with: vlfs disk create --size SIZE %s", img, img)
	case errors.Is(err, vld.ErrInvalid) && strings.Contains(err.Error(), "not a logical disk"):
		return fmt.Errorf("%s holds a vlfs file system, not a logical disk (mount it with vlfs mount, or create a disk with vlfs disk create): %v", img, err)
	case errors.Is(err, vld.ErrCorrupt):
		return fmt.Errorf("%s is damaged: %v", img, err)
	}
	return fmt.Errorf("opening %s: %w", img, err)
}

func (a *diskServeArgs) servingMessage(w io.Writer, srv *diskfs.Server, d *logical.Disk) {
	disk, dir := srv.DiskPath(), srv.Dir()
	fmt.Fprintf(w, "vlfs: serving %s on %s (pid %d): %s, placement %s, %s disk, clock %s\n", a.img, dir, os.Getpid(),
		sizeText(d.Blocks()*int64(d.BlockSize())), d.Placement(), d.Volume().Model().Name, a.clockName)
	if rec := d.Volume().Recovery(); !rec.Clean {
		fmt.Fprintf(w, "  recovered after an unclean stop: %d log entries, %d blocks scanned\n", rec.Entries, rec.ScannedBlocks)
	}
	fmt.Fprintf(w, "  kernel ext4:  mkfs.ext4 %s && mount -o loop %s /mnt/x\n", disk, disk)
	fmt.Fprintf(w, "  fuse2fs:      fuse2fs %s /mnt/x\n", disk)
	fmt.Fprintf(w, "  statistics:   cat %s/stats\n", dir)
	fmt.Fprintf(w, "  stop:         vlfs disk umount %s   (or Ctrl-C here), after unmounting what runs on it\n", dir)
}

// serveDiskUntilUnmounted serves until the mount ends, then closes the disk
// cleanly. A signal unmounts, unless something still uses the disk file:
// then it says what and keeps serving.
func serveDiskUntilUnmounted(srv *diskfs.Server, ld *diskfs.Logical, sigs <-chan os.Signal, w io.Writer) int {
	onSignal := func(sig os.Signal, _ int) bool {
		fmt.Fprintf(w, "vlfs: %v: unmounting %s\n", sig, srv.Dir())
		if err := srv.Unmount(); err != nil {
			fmt.Fprintf(w, "vlfs: %v\nvlfs: still serving; release it, then signal again (kill -9 would stop without closing the image)\n", err)
		}
		return true
	}
	return serveUntilEnded(srv.Wait, sigs, onSignal, func() int {
		if err := ld.Close(); err != nil {
			fmt.Fprintf(w, "vlfs: %s unmounted, but closing the disk failed: %v (the next serve recovers it)\n", srv.Dir(), err)
			return exitFailure
		}
		fmt.Fprintf(w, "vlfs: %s unmounted; the image is closed cleanly\n", srv.Dir())
		return exitOK
	})
}
