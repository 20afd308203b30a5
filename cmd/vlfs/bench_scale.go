package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchScale is `vlfs bench scale`: issue 3's scale targets, mount time
// of a clean 1 GiB image with 100,000 files and resident memory with
// 1,000,000 files, and issue 32's large disk, a sparse 1 TiB image formatted,
// mounted and checked, empty and with --large-files files (wall clock).
func runBenchScale(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("scale", "[--disk NAME|FILE] [--dir DIR] [--mount-files N] [--mount-image-mib N] [--file-kib N] [--mem-files N] [--mem-image-mib N] [--mounts N] [--large-disk NAME|FILE] [--large-gib N] [--large-files N] [--quick] [--json]", stdout, stderr)
	b.disk("st19101", diskModelUsage+" (sets the images' geometry)")
	dir := b.dir("", "directory for the temporary images (default $TMPDIR); needs about 1.5 GiB")
	quick := b.quick("a smoke run: 10,000 and 50,000 files in 256 MiB images")
	mountFiles := b.fl.Int("mount-files", 100000, "files in the mount-time image")
	mountMiB := b.fl.Int("mount-image-mib", 1024, "size of the mount-time image")
	fileKiB := b.fl.Int("file-kib", 4, "size of each file in the mount-time image")
	memFiles := b.fl.Int("mem-files", 1000000, "empty files in the memory image")
	memMiB := b.fl.Int("mem-image-mib", 2048, "size of the memory image")
	mounts := b.fl.Int("mounts", 3, "timed mounts of the mount-time image (the median is reported)")
	largeDisk := b.fl.String("large-disk", "st4000nm0023", diskModelUsage+" of the large image")
	largeGiB := b.fl.Int("large-gib", 1024, "size of the sparse large image in GiB (0: no large rows)")
	largeFiles := b.fl.Int("large-files", 0, "empty files added to the large image for its second row (0: none)")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		*mountFiles = quickSamples(b.fl, "mount-files", *mountFiles, 10000)
		*mountMiB = quickSamples(b.fl, "mount-image-mib", *mountMiB, 256)
		*memFiles = quickSamples(b.fl, "mem-files", *memFiles, 50000)
		*memMiB = quickSamples(b.fl, "mem-image-mib", *memMiB, 256)
	}
	for _, v := range []int{*mountFiles, *mountMiB, *fileKiB, *memFiles, *memMiB, *mounts} {
		if v <= 0 {
			return b.usageErr("counts and sizes must be positive")
		}
	}
	if *largeGiB < 0 || *largeFiles < 0 {
		return b.usageErr("--large-gib and --large-files must not be negative")
	}
	lm, code := resolveDisk(b.cmd(), *largeDisk, stderr)
	if lm == nil {
		return code
	}
	rep, err := bench.Scale(bench.ScaleConfig{
		Model: b.model, Dir: *dir, MountFiles: *mountFiles, MountImageMiB: *mountMiB, FileKiB: *fileKiB,
		MemFiles: *memFiles, MemImageMiB: *memMiB, Mounts: *mounts,
		LargeModel: lm, LargeGiB: *largeGiB, LargeFiles: *largeFiles, Progress: stderr,
	})
	return b.report(rep, err)
}
