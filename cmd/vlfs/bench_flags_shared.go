package main

import (
	"fmt"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/logical"
)

// The flags several benchmarks take, each defined here once. Where
// benchmarks differ in a flag's default or in what its help needs to say,
// the caller gives them; the flag's name, type and meaning are the same
// everywhere.

// Help texts that several benchmarks share word for word.
const (
	diskModelUsage = "disk preset or model file"
	seedUsage      = "random seed"
	// headUsage is the --head flag's help on the simulated benchmarks.
	headUsage = "eager placement's head model: sim (the simulator's own) or profile:FILE (vlfs profile; measured on the --disk in use)"
)

// quick defines --quick; usage says what the smaller run leaves out.
func (b *benchFlags) quick(usage string) *bool {
	return b.fl.Bool("quick", false, usage)
}

// disk defines --disk, one disk that parse resolves into b.model. A
// benchmark that needs the name too (to pass it on) keeps the pointer.
func (b *benchFlags) disk(def, usage string) *string {
	return b.diskFlag(def, usage, false)
}

// optionalDisk defines --disk for a benchmark that runs its own disks
// unless given one: b.model stays nil when --disk is empty.
func (b *benchFlags) optionalDisk(usage string) *string {
	return b.diskFlag("", usage, true)
}

func (b *benchFlags) diskFlag(def, usage string, optional bool) *string {
	name := b.fl.String("disk", def, usage)
	b.checks = append(b.checks, func() bool {
		if optional && *name == "" {
			return true
		}
		b.model, _ = resolveDisk(b.cmd(), *name, b.stderr)
		return b.model != nil
	})
	return name
}

// seed defines --seed, 1 unless given.
func (b *benchFlags) seed(usage string) *int64 {
	return b.fl.Int64("seed", 1, usage)
}

// diskMiB defines --disk-mib, the simulated disk's size.
func (b *benchFlags) diskMiB(def int64, usage string) *int64 {
	return b.fl.Int64("disk-mib", def, usage)
}

// dir defines --dir, where a benchmark keeps its images and files.
func (b *benchFlags) dir(def, usage string) *string {
	return b.fl.String("dir", def, usage)
}

// updates defines --updates, the measured updates per point.
func (b *benchFlags) updates(def int, usage string) *int {
	return b.fl.Int("updates", def, usage)
}

// headFlag defines --head, sim or profile:FILE, which parse reads into
// b.head with mount's and mkfs's parser (parseHead).
func (b *benchFlags) headFlag(usage string) {
	s := b.fl.String("head", "sim", usage)
	b.checks = append(b.checks, func() bool {
		var ok bool
		b.head, ok = benchHead(b.cmd(), *s, b.stderr)
		return ok
	})
}

// placement defines --placement, "all" (runs) or a list of some of runs,
// which parse reads into b.places.
func (b *benchFlags) placement(def, usage string, runs []vld.Placement) {
	s := b.fl.String("placement", def, usage)
	b.checks = append(b.checks, func() bool {
		var ok bool
		b.places, ok = parsePlacements(b.cmd(), *s, runs, b.stderr)
		return ok
	})
}

// eagerOnly defines --placement on a benchmark that measures the disk or
// the VLD's own mechanisms, not a placement policy: parse accepts eager
// (the default) and refuses anything else, saying why.
func (b *benchFlags) eagerOnly(why string) {
	s := b.fl.String("placement", "eager", "only eager: "+why)
	b.checks = append(b.checks, func() bool { return rejectPlacement(b.cmd(), *s, why, b.stderr) })
}

// cleanPolicy defines --clean-policy, the lfs rows' segment cleaner,
// which parse reads into b.cleaner.
func (b *benchFlags) cleanPolicy() {
	s := b.fl.String("clean-policy", "cost-benefit", "the lfs segment cleaner's policy: cost-benefit or greedy")
	b.checks = append(b.checks, func() bool {
		var err error
		if b.cleaner, err = logical.ParseCleanPolicy(*s); err != nil {
			b.usageErr("--clean-policy: %v", err)
			return false
		}
		return true
	})
}

// placedImage defines the flags of a benchmark that runs vlfs on a
// simulated disk once per placement (smallfile, largefile): --disk,
// --disk-mib (the image's size, returned), --placement and --head.
func (b *benchFlags) placedImage() *int64 {
	b.disk("st19101", diskModelUsage)
	size := b.diskMiB(128, "simulated disk (image) size in MiB")
	b.placement("all", "placements to run: all, or a list of eager, inplace, lfs", bench.Placements)
	b.headFlag(headUsage)
	return size
}

// eagerAllocator defines the flags of Figures 1 and 2 of the virtual-log
// paper (figure), which simulate the eager allocator on one disk: --disk
// (required), --unit-sectors (the allocation unit, returned; parse checks
// it is positive) and --placement, eager only, for the reason why.
func (b *benchFlags) eagerAllocator(figure, why string) *int {
	b.disk("", diskModelUsage+" (required)")
	b.eagerOnly(why)
	unit := b.fl.Int("unit-sectors", 1, "allocation unit in 512-byte sectors (1 = per sector, as Figure "+figure+")")
	b.checks = append(b.checks, func() bool {
		if *unit <= 0 {
			b.usageErr("--unit-sectors must be positive, got %d", *unit)
			return false
		}
		return true
	})
	return unit
}

// quiet defines -q; logf is the progress log it silences.
func (b *benchFlags) quiet() *bool {
	return b.fl.Bool("q", false, "no progress on stderr")
}

// targets defines --targets, a comma-separated subset of known (all of
// them by default), read by pickNames.
func (b *benchFlags) targets(known []string) *string {
	return b.fl.String("targets", strings.Join(known, ","), "comma-separated targets")
}

// loopback defines --loopback, the go-fuse peer's binary (findLoopback).
func (b *benchFlags) loopback() *string {
	return b.fl.String("loopback", "", "vlfs-loopback binary (default: go build bench/loopback into bin/)")
}

// fsVersion defines --fs-version. Its default, 0, is vlfs mkfs's own
// default version; any other number goes to mkfs as it is, so that a
// version this code does not name can be measured.
func (b *benchFlags) fsVersion(usage string) *uint {
	return b.fl.Uint("fs-version", 0, usage)
}

// pieces defines --pieces, block or sector: the map pieces of the eager
// logical disks (vld/logical/pieces.go). It reports whether sector pieces
// were asked for, once parsed.
func (b *benchFlags) pieces() *bool {
	s := b.fl.String("pieces", "block", "the eager logical disks' map pieces: block (768 blocks a piece, a 3 KiB log entry) or sector (64, a one-sector entry)")
	sector := new(bool)
	b.checks = append(b.checks, func() bool {
		switch *s {
		case "block", "sector":
			*sector = *s == "sector"
			return true
		}
		fmt.Fprintf(b.stderr, "vlfs %s: --pieces %q: want block or sector\n", b.cmd(), *s)
		return false
	})
	return sector
}

// seeds defines --seeds, how many seeds (seed, seed+1, ...) each point is
// averaged over; at least 1.
func (b *benchFlags) seeds() *int {
	n := b.fl.Int("seeds", 1, "average every point over this many seeds (seed, seed+1, ...): a seed's layout moves a point by up to 13 %")
	b.checks = append(b.checks, func() bool {
		if *n >= 1 {
			return true
		}
		fmt.Fprintf(b.stderr, "vlfs %s: --seeds %d: want at least 1\n", b.cmd(), *n)
		return false
	})
	return n
}
