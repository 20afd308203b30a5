package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchScale is `vlfs bench scale`: issue 3's scale targets, mount time
// of a clean 1 GiB image with 100,000 files and resident memory with
// 1,000,000 files, and issue 32's large disk, a sparse 1 TiB image formatted,
// mounted and checked, empty and with --large-files files (wall clock).
func runBenchScale(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench scale", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file (sets the images' geometry)")
	dir := fl.String("dir", "", "directory for the temporary images (default $TMPDIR); needs about 1.5 GiB")
	mountFiles := fl.Int("mount-files", 100000, "files in the mount-time image")
	mountMiB := fl.Int("mount-image-mib", 1024, "size of the mount-time image")
	fileKiB := fl.Int("file-kib", 4, "size of each file in the mount-time image")
	memFiles := fl.Int("mem-files", 1000000, "empty files in the memory image")
	memMiB := fl.Int("mem-image-mib", 2048, "size of the memory image")
	mounts := fl.Int("mounts", 3, "timed mounts of the mount-time image (the median is reported)")
	largeDisk := fl.String("large-disk", "st4000nm0023", "disk preset or model file of the large image")
	largeGiB := fl.Int("large-gib", 1024, "size of the sparse large image in GiB (0: no large rows)")
	largeFiles := fl.Int("large-files", 0, "empty files added to the large image for its second row (0: none)")
	quick := fl.Bool("quick", false, "a smoke run: 10,000 and 50,000 files in 256 MiB images")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench scale [--disk NAME|FILE] [--dir DIR] [--mount-files N] [--mount-image-mib N] [--file-kib N] [--mem-files N] [--mem-image-mib N] [--mounts N] [--large-disk NAME|FILE] [--large-gib N] [--large-files N] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		*mountFiles = quickSamples(fl, "mount-files", *mountFiles, 10000)
		*mountMiB = quickSamples(fl, "mount-image-mib", *mountMiB, 256)
		*memFiles = quickSamples(fl, "mem-files", *memFiles, 50000)
		*memMiB = quickSamples(fl, "mem-image-mib", *memMiB, 256)
	}
	for _, v := range []int{*mountFiles, *mountMiB, *fileKiB, *memFiles, *memMiB, *mounts} {
		if v <= 0 {
			fmt.Fprintln(stderr, "vlfs bench scale: counts and sizes must be positive")
			return exitUsage
		}
	}
	if *largeGiB < 0 || *largeFiles < 0 {
		fmt.Fprintln(stderr, "vlfs bench scale: --large-gib and --large-files must not be negative")
		return exitUsage
	}
	m, code := resolveDisk("bench scale", *diskName, stderr)
	if m == nil {
		return code
	}
	lm, code := resolveDisk("bench scale", *largeDisk, stderr)
	if lm == nil {
		return code
	}
	rep, err := bench.Scale(bench.ScaleConfig{
		Model: m, Dir: *dir, MountFiles: *mountFiles, MountImageMiB: *mountMiB, FileKiB: *fileKiB,
		MemFiles: *memFiles, MemImageMiB: *memMiB, Mounts: *mounts,
		LargeModel: lm, LargeGiB: *largeGiB, LargeFiles: *largeFiles, Progress: stderr,
	})
	if err != nil {
		return benchFailure("scale", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
