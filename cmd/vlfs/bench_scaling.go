package main

import (
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/vlfs/vlfs/bench"
)

// runBenchScaling is `vlfs bench scaling`: issue 31's thread scaling,
// varmail and oltp at 1, 2, 4, 8 and 16 threads on every peer (wall).
func runBenchScaling(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("scaling", "[--threads 1,2,4,8,16] [--duration 6s] [--targets native,fuse2fs,loopback,vlfs] [--size 1GiB] [--quick] [--json]", stdout, stderr)
	diskName := b.disk("st19101", "vlfs's "+diskModelUsage)
	dir := b.dir(os.TempDir(), "work directory: images and the native target live here (one host file system)")
	targets := b.targets(bench.PeerTargets())
	quick := b.quick("a smoke run: 1 and 4 threads, 1 s a point, 256 MiB images")
	quiet := b.quiet()
	loopback := b.loopback()
	threadList := b.fl.String("threads", "1,2,4,8,16", "client thread counts, comma-separated")
	duration := b.fl.Duration("duration", 6*time.Second, "time of each point (one workload at one thread count)")
	size := b.fl.String("size", "1GiB", "image size of fuse2fs and vlfs")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		quickDefault(b.fl, "threads", threadList, "1,4")
		quickDefault(b.fl, "duration", duration, time.Second)
		quickDefault(b.fl, "size", size, "256MiB")
	}
	threads, err := parseList(*threadList, nil, strconv.Atoi)
	if err != nil || len(threads) == 0 || slices.ContainsFunc(threads, func(n int) bool { return n < 1 }) {
		return b.usageErr("--threads %q: positive counts, comma-separated", *threadList)
	}
	if *duration <= 0 {
		return b.usageErr("--duration %v: must be positive", *duration)
	}
	sizes := bench.DefaultPeersSizes()
	if *quick {
		sizes = bench.QuickPeersSizes()
	}
	sizes.Duration = *duration
	if sizes.ImageBytes, err = parseSize(*size); err != nil {
		return b.usageErr("%v", err)
	}
	cfg := bench.PeersConfig{DiskName: *diskName, WorkDir: *dir, Quick: *quick, Sizes: sizes, Model: b.model}
	if cfg.Targets, err = pickNames("targets", *targets, bench.PeerTargets()); err != nil {
		return b.usageErr("%v", err)
	}
	cfg.Logf = b.logf(*quiet)
	if slices.Contains(cfg.Targets, bench.PeerLoopback) {
		cfg.Loopback, cfg.LoopbackWhy = findLoopback(*loopback, cfg.Logf)
	}
	rep, err := bench.RunScaling(cfg, threads)
	return b.report(rep, err)
}
