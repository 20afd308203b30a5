package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/liveline"
	"github.com/vlfs/vlfs/internal/zerofill"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// mkfsProgressMin is the image size from which mkfs reports progress.
const mkfsProgressMin = 256 << 20

func runMkfs(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mkfs", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset ("+strings.Join(disk.PresetNames(), ", ")+") or model file")
	sizeText := fl.String("size", "1GiB", "image size: 512MiB, 1GiB, 4G (binary), 4GB (decimal); without it an existing file keeps its size, and a block device always does")
	force := fl.Bool("force", false, "format even if IMAGE already holds a file system or other data")
	quiet := fl.Bool("quiet", false, "no progress report")
	sparse := fl.Bool("sparse", false, "leave the image file's holes (default: write zeros into them, so that the host allocates every block now and not at the first fsync that reaches it; docs/mounting.md)")
	headText := fl.String("head", "sim", "head model for mkfs's own writes: sim or profile:FILE")
	fsVersion := fl.Uint("fs-version", ondisk.FSVersion, "file-system version: 5 also keeps fallocate's reservations as unwritten pointers (no zero blocks written), 4 checksums every data block in the pointer that names it, 3 commits small synchronous updates as log records, 2 does not (it names indirect blocks through the inode map), 1 names them by address (for comparisons; docs/vlfs-format.md)")
	placeText := fl.String("placement", "eager", "block placement, fixed for the image: eager (the VLD), inplace (update in place), lfs (a log of 512 KiB segments) or range (a file's blocks ranged after its previous block, docs/ranges.md); docs/placement.md")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs mkfs [--disk PRESET|FILE] [--size SIZE] [--placement eager|inplace|lfs|range] [--head sim|profile:FILE] [--fs-version 1|2|3|4|5] [--sparse] [--force] IMAGE")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil || fl.NArg() != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	img := fl.Arg(0)
	model, err := disk.Resolve(*diskName)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mkfs: %v\n", err)
		return exitUsage
	}
	size, err := parseSize(*sizeText)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mkfs: --size: %v\n", err)
		return exitUsage
	}
	head, err := parseHead(*headText)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mkfs: %v\n", err)
		return exitUsage
	}
	place, err := vld.ParsePlacement(*placeText)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mkfs: --placement: %v\n", err)
		return exitUsage
	}
	if *fsVersion < ondisk.FSVersionAddr || *fsVersion > ondisk.FSVersionUnwritten {
		fmt.Fprintf(stderr, "vlfs mkfs: --fs-version %d: want %d to %d\n", *fsVersion, ondisk.FSVersionAddr, ondisk.FSVersionUnwritten)
		return exitUsage
	}
	sizeSet := flagSet(fl, "size")
	m := mkfsJob{version: uint32(*fsVersion), place: place, head: head, img: img, model: model, size: size, sizeSet: sizeSet, force: *force, quiet: *quiet, sparse: *sparse, stdout: stdout, stderr: stderr}
	if err := m.run(); err != nil {
		fmt.Fprintf(stderr, "vlfs mkfs: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

type mkfsJob struct {
	img            string
	model          *disk.Model
	size           int64
	sizeSet, force bool
	quiet, sparse  bool
	head           *profile.Profile // nil: the simulated head
	place          vld.Placement
	version        uint32 // file-system version
	stdout, stderr io.Writer
}

func (m *mkfsJob) run() error {
	existed, isDev, err := m.checkTarget()
	if err != nil {
		return err
	}
	// An existing file keeps its size unless --size says otherwise, as
	// mke2fs does: a user who made a 4 GiB file expects a 4 GiB image.
	if st, err := os.Stat(m.img); err == nil && existed && !isDev && !m.sizeSet && st.Size() > 0 {
		m.size = st.Size()
	}
	if capacity := m.model.CapacityBytes(); !isDev && m.size > capacity {
		fmt.Fprintf(m.stderr, "vlfs mkfs: the %s disk holds %s; the image is cut to that size\n", m.model.Name, sizeText(capacity))
		m.size = capacity
	}
	opts := device.FileOptions{Create: !isDev}
	if !isDev {
		opts.Size = m.size
	}
	dev, err := device.OpenFile(m.img, opts)
	if err != nil {
		return describeOpenError(m.img, err)
	}
	if !isDev && !m.sparse {
		err = fillImage(m.img, m.size, m.stderr, m.quiet)
	}
	if err == nil {
		err = m.format(dev)
	}
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	if err != nil && !existed {
		os.Remove(m.img) // do not leave a half-formatted new file behind
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(m.stdout, "vlfs: formatted %s: %s, %s disk model, 4096-byte blocks, placement %s, file-system version %d\n", m.img, sizeText(dev.Size()), m.model.Name, m.place, m.version)
	fmt.Fprintf(m.stdout, "mount it with: vlfs mount %s MOUNTPOINT\n", m.img)
	return nil
}

// fillImage writes zeros into an image file's holes (package zerofill
// says why), showing progress on stderr for large images unless quiet.
func fillImage(img string, size int64, stderr io.Writer, quiet bool) error {
	var progress func(done, total int64)
	if !quiet && size >= mkfsProgressMin {
		progress = progressPrinter(stderr, "allocating")
	}
	if _, err := zerofill.File(img, progress); err != nil {
		return fmt.Errorf("allocating %s (--sparse skips this): %w", img, err)
	}
	// A host file system that compresses or deduplicates keeps written
	// zeros sparse (and ZFS counts blocks only when its transaction group
	// commits); say so rather than promise what may not have happened.
	var st unix.Stat_t
	if err := unix.Stat(img, &st); err == nil && st.Blocks*512 < size {
		fmt.Fprintf(stderr, "vlfs: warning: the host file system reports %s of %s allocated after zeros were written to %s (compression, deduplication, or a delayed count?); if it keeps the image sparse, its first writes into each block will be slower (docs/mounting.md)\n",
			sizeText(st.Blocks*512), sizeText(size), img)
	}
	return nil
}

func (m *mkfsJob) format(dev device.Device) error {
	o := vlfs.MkfsOptions{Model: m.model, Head: m.head, Placement: m.place, Version: m.version}
	if !m.quiet && dev.Size() >= mkfsProgressMin {
		o.Progress = progressPrinter(m.stderr, "formatting")
	}
	if err := vlfs.Mkfs(dev, o); err != nil {
		return fmt.Errorf("formatting %s: %w", m.img, err)
	}
	return nil
}

// progressPrinter reports progress in whole steps of 5 % on one line.
func progressPrinter(w io.Writer, what string) func(done, total int64) {
	line := liveline.New(w)
	return func(done, total int64) {
		if total <= 0 {
			return
		}
		pct := done * 100 / total / 5 * 5
		s := fmt.Sprintf("%s: %3d%%", what, pct)
		line.Show(s, s)
		if done >= total {
			line.End()
		}
	}
}

// checkTarget refuses to format over a vld volume or other data without
// --force, and over anything in use even with it.
func (m *mkfsJob) checkTarget() (existed, isDev bool, err error) {
	st, err := os.Stat(m.img)
	if errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	isDev = st.Mode()&os.ModeDevice != 0
	switch {
	case st.IsDir():
		return true, false, fmt.Errorf("%s is a directory; give the path of an image file", m.img)
	case isDev && m.sizeSet:
		return true, true, fmt.Errorf("%s is a block device; it keeps its own size (drop --size)", m.img)
	case !isDev && st.Size() == 0:
		return true, false, nil
	}
	what, err := describeContent(m.img)
	if err != nil || what == "" || m.force {
		return true, isDev, err
	}
	return true, isDev, fmt.Errorf("%s already holds %s; use --force to overwrite it", m.img, what)
}

// describeContent says what an image holds, "" if only zeros.
func describeContent(img string) (string, error) {
	dev, err := device.OpenFile(img, device.FileOptions{ReadOnly: true})
	if err != nil {
		return "", describeOpenError(img, err)
	}
	defer dev.Close()
	vol, err := vld.Open(dev, vld.Options{ReadOnly: true})
	if err == nil {
		defer vol.Close()
		return fmt.Sprintf("a %s volume (%s)", vol.Kind(), sizeText(int64(vol.NumBlocks())*int64(vol.BlockSize()))), nil
	}
	if !errors.Is(err, vld.ErrNotFormatted) {
		return "a damaged vld volume (" + err.Error() + ")", nil
	}
	buf := make([]byte, min(dev.Size(), 1<<20))
	if _, err := dev.ReadAt(buf, 0); err != nil {
		return "", fmt.Errorf("reading %s: %w", img, err)
	}
	if bytes.Count(buf, []byte{0}) == len(buf) {
		return "", nil
	}
	return "data that is not a vlfs image", nil
}

// describeOpenError turns a lock conflict into advice.
func describeOpenError(img string, err error) error {
	if errors.Is(err, device.ErrLocked) {
		return fmt.Errorf("%s is in use by another process (mounted, or being checked): unmount it first (vlfs umount MOUNTPOINT)", img)
	}
	return err
}

// parseSize reads sizes such as 4096, 512MiB, 1GiB, 4G (binary units) or
// 4GB (decimal units); fractions are allowed ("1.5GiB").
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad size %q (want a number and a unit, as 512MiB or 4G)", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("bad size unit in %q (use B, K, KiB, KB, M, MiB, MB, G, GiB, GB, T, TiB, TB)", s)
	}
	v := f * float64(mult)
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q too large", s)
	}
	return int64(v), nil
}

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// sizeText prints a byte count with a binary unit.
func sizeText(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.2f %s", f, units[i])
}
