package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// diskCreateArgs is a parsed `vlfs disk create` command line.
type diskCreateArgs struct {
	img    string
	model  *disk.Model
	place  vld.Placement
	size   int64
	force  bool
	sparse bool
	per    int // map entries a piece (0: block pieces)
}

func runDiskCreate(args []string, stdout, stderr io.Writer) int {
	a, code := parseDiskCreate(args, stderr)
	if a == nil {
		return code
	}
	if err := a.create(stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "vlfs disk create: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func parseDiskCreate(args []string, stderr io.Writer) (*diskCreateArgs, int) {
	fl := flag.NewFlagSet("disk create", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset ("+strings.Join(disk.PresetNames(), ", ")+") or model file")
	place := fl.String("placement", "eager", "eager (the VLD: each block near the head, mapped), inplace (fixed homes: a regular disk) or lfs (a log of 512 KiB segments)")
	sizeArg := fl.String("size", "", "image size (required): 256MiB, 1GiB, 4G; the exported disk is a little smaller")
	force := fl.Bool("force", false, "overwrite an image that already holds data")
	sparse := fl.Bool("sparse", false, "leave the image file's holes (default: write zeros into them, as vlfs mkfs does; docs/mounting.md)")
	pieces := fl.String("pieces", "block", "the map's pieces (eager): block (768 blocks a piece, a 3 KiB log entry per update) or sector (64 blocks, a one-sector entry; docs/logical-disk.md)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs disk create [--disk PRESET|FILE] [--placement eager|inplace|lfs] [--pieces block|sector] --size SIZE [--sparse] [--force] IMAGE")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return nil, exitUsage
	}
	if len(pos) != 1 || *sizeArg == "" {
		fl.Usage()
		return nil, exitUsage
	}
	a := &diskCreateArgs{img: pos[0], force: *force, sparse: *sparse}
	bad := func(err error) (*diskCreateArgs, int) {
		fmt.Fprintf(stderr, "vlfs disk create: %v\n", err)
		return nil, exitUsage
	}
	if a.model, err = disk.Resolve(*diskName); err != nil {
		return bad(err)
	}
	// range placement needs the file system's hints (a file's previous
	// block); a block device gives none, so it is refused, not silently eager.
	if a.place, err = vld.ParsePlacement(*place); err != nil || a.place == vld.PlaceRange {
		return bad(fmt.Errorf("--placement %q: want eager, inplace or lfs (range needs a file system: vlfs mkfs)", *place))
	}
	switch {
	case *pieces == "sector" && a.place == vld.PlaceEager:
		a.per = logical.SectorPieceEntries
	case *pieces == "sector":
		return bad(fmt.Errorf("--pieces sector: for eager placement only (in place keeps no map at run time; lfs writes its map with the segment)"))
	case *pieces != "block":
		return bad(fmt.Errorf("--pieces %q: want block or sector", *pieces))
	}
	if a.size, err = parseSize(*sizeArg); err != nil {
		return bad(fmt.Errorf("--size: %w", err))
	}
	if a.size < 4<<20 {
		return bad(fmt.Errorf("--size %s: a logical disk needs at least 4 MiB", *sizeArg))
	}
	return a, exitOK
}

// create formats the image: a new (or, with --force, emptied) regular file.
func (a *diskCreateArgs) create(stdout, stderr io.Writer) error {
	existed, err := a.checkTarget()
	if err != nil {
		return err
	}
	if c := a.model.CapacityBytes(); a.size > c {
		fmt.Fprintf(stderr, "vlfs disk create: the %s disk holds %s; the image is cut to that size\n", a.model.Name, sizeText(c))
		a.size = c
	}
	// Open (and lock) first: an image someone else holds must not be
	// emptied before the lock refuses it.
	dev, err := device.OpenFile(a.img, device.FileOptions{Create: true, Size: a.size})
	if err != nil {
		return describeOpenError(a.img, err)
	}
	if existed {
		// Empty it: in-place homes are read as they are on the image, so
		// old contents must not show through.
		if err = os.Truncate(a.img, 0); err == nil {
			err = os.Truncate(a.img, a.size)
		}
	}
	if err == nil && !a.sparse {
		err = fillImage(a.img, a.size, stderr, false)
	}
	if err == nil {
		if err = logical.FormatWith(dev, vld.FormatOptions{Model: a.model}, a.place, a.per); err != nil {
			err = fmt.Errorf("formatting %s: %w", a.img, err)
		}
	}
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if !existed {
			os.Remove(a.img)
		}
		return err
	}
	return a.report(stdout)
}

// checkTarget refuses a directory, a device, and (without --force) a file
// that holds data.
func (a *diskCreateArgs) checkTarget() (existed bool, err error) {
	st, err := os.Stat(a.img)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case st.IsDir():
		return true, fmt.Errorf("%s is a directory; give the path of an image file", a.img)
	case !st.Mode().IsRegular():
		return true, fmt.Errorf("%s is not a regular file; logical-disk images are files", a.img)
	case st.Size() == 0 || a.force:
		return true, nil
	}
	what, err := describeContent(a.img)
	if err != nil || what == "" {
		return true, err
	}
	return true, fmt.Errorf("%s already holds %s; use --force to overwrite it", a.img, what)
}

// report opens the new image once, read-write, so that its close writes
// the tail record (the first serve then finds a clean stop), and prints
// what was made and what to do next.
func (a *diskCreateArgs) report(w io.Writer) error {
	dev, err := device.OpenFile(a.img, device.FileOptions{})
	if err != nil {
		return err
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		dev.Close()
		return fmt.Errorf("reopening %s: %w", a.img, err)
	}
	blocks, bs, per := d.Blocks(), d.BlockSize(), d.PieceEntries()
	if err := d.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", a.img, err)
	}
	fmt.Fprintf(w, "vlfs: created %s: image %s, exported disk %s (%d blocks of %d bytes), placement %s, %s disk model, %d blocks a map piece\n",
		a.img, sizeText(a.size), sizeText(blocks*int64(bs)), blocks, bs, a.place, a.model.Name, per)
	fmt.Fprintf(w, "serve it with: vlfs disk serve %s MOUNTPOINT\n", a.img)
	return nil
}
