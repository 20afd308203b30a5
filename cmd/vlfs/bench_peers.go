package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vlfs/vlfs/bench"
)

// runBenchPeers is `vlfs bench peers`: vlfs against the host file system,
// fuse2fs and a go-fuse loopback on the wall clock, one run, side by side.
func runBenchPeers(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("peers", "[--quick] [--rounds N] [--targets native,fuse2fs,loopback,vlfs] [--workloads fio,varmail,oltp,meta,sqlite] [--head sim|profile:FILE] [--fs-version N] [--json]", stdout, stderr)
	diskName := b.disk("st19101", "vlfs's "+diskModelUsage)
	dir := b.dir(os.TempDir(), "work directory: images and the native target live here (one host file system)")
	targets := b.targets(bench.PeerTargets())
	b.headFlag("vlfs's head model: sim (the simulated disk's) or profile:FILE (vlfs profile of the host device under the image)")
	quick := b.quick("small sizes: the whole run in well under 2 minutes")
	quiet := b.quiet()
	fsVersion := b.fsVersion("vlfs's file-system version (0: mkfs's default; 3 has no data checksums, for measuring what they cost)")
	loopback := b.loopback()
	workloads := b.fl.String("workloads", strings.Join(bench.PeerWorkloads(), ","), "comma-separated workload groups")
	profileDir := b.fl.String("profile", "", "write mutex.pprof and block.pprof of the in-process vlfs server into this directory while the vlfs target runs")
	cpuprofile := b.fl.String("cpuprofile", "", "write a CPU profile of the in-process vlfs server while the vlfs target runs")
	sparse := b.fl.Bool("sparse", false, "leave the fuse2fs and vlfs images sparse (default: written full of zeros first, as a disk has no holes)")
	rounds := b.fl.Int("rounds", 1, "run every target this many times, rotating which goes first, and report medians with each round's ratios (a noisy host moves one run's ratios)")
	var sz sizeFlags
	sz.register(b.fl)
	if !b.parse(args) {
		return exitUsage
	}
	if *rounds < 1 {
		return b.usageErr("--rounds %d: need at least 1", *rounds)
	}
	cfg := bench.PeersConfig{DiskName: *diskName, WorkDir: *dir, Quick: *quick, SparseImages: *sparse, CPUProfile: *cpuprofile, ProfileDir: *profileDir,
		Rounds: *rounds, Sizes: bench.DefaultPeersSizes(), FSVersion: uint32(*fsVersion),
		Model: b.model, Head: b.head}
	if *quick {
		cfg.Sizes = bench.QuickPeersSizes()
	}
	var err error
	if cfg.Targets, err = pickNames("targets", *targets, bench.PeerTargets()); err == nil {
		cfg.Workloads, err = pickNames("workloads", *workloads, bench.PeerWorkloads())
	}
	if err == nil {
		err = sz.apply(&cfg.Sizes)
	}
	if err != nil {
		return b.usageErr("%v", err)
	}
	cfg.Logf = b.logf(*quiet)
	if strings.Contains(*targets, bench.PeerLoopback) {
		cfg.Loopback, cfg.LoopbackWhy = findLoopback(*loopback, cfg.Logf)
	}
	rep, err := bench.RunPeers(cfg)
	return b.report(rep, err)
}

// pickNames parses a comma-separated subset of known names.
func pickNames(what, list string, known []string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		ok := false
		for _, k := range known {
			ok = ok || k == n
		}
		if !ok {
			return nil, fmt.Errorf("--%s: unknown %q (known: %s)", what, n, strings.Join(known, ","))
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: empty", what)
	}
	return out, nil
}

// sizeFlags override single workload sizes (tests use tiny ones).
type sizeFlags struct {
	image, seq, metaFiles, syncIOs string
	duration, mixDuration          time.Duration
}

func (s *sizeFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&s.image, "size", "", "image size of fuse2fs and vlfs (default 4GiB, --quick 512MiB)")
	fl.StringVar(&s.seq, "seq-size", "", "sequential file size (default 1GiB, --quick 64MiB)")
	fl.StringVar(&s.metaFiles, "files", "", "files of the metadata storm (default 100000, --quick 2000)")
	fl.StringVar(&s.syncIOs, "sync-ios", "", "writes of the fio fsync/fdatasync jobs (default 2000, --quick 200)")
	fl.DurationVar(&s.duration, "duration", 0, "time of each of varmail, oltp and sqlite (default 15s, --quick 2s)")
	fl.DurationVar(&s.mixDuration, "mix-duration", 0, "time of the stress-ng mix (default 45s, --quick 5s)")
}

func (s *sizeFlags) apply(z *bench.PeersSizes) error {
	var err error
	set := func(v string, dst *int64) {
		if v != "" && err == nil {
			var n int64
			if n, err = parseSize(v); err == nil && n <= 0 {
				err = fmt.Errorf("size %q must be positive", v)
			}
			*dst = n
		}
	}
	set(s.image, &z.ImageBytes)
	set(s.seq, &z.SeqBytes)
	var files, ios int64 = int64(z.MetaFiles), int64(z.SyncIOs)
	set(s.metaFiles, &files)
	set(s.syncIOs, &ios)
	z.MetaFiles, z.SyncIOs = int(files), int(ios)
	if s.duration > 0 {
		z.Duration = s.duration
	}
	if s.mixDuration > 0 {
		z.MixDuration = s.mixDuration
	}
	return err
}

// findLoopback returns the vlfs-loopback binary to use, building it from
// bench/loopback when the source is here, or "" and why not.
func findLoopback(given string, logf func(string, ...any)) (bin, why string) {
	if given != "" {
		if _, err := os.Stat(given); err != nil {
			return "", err.Error()
		}
		return given, ""
	}
	root := findSourceRoot()
	if root == "" {
		exe, err := os.Executable()
		if err == nil {
			if p := filepath.Join(filepath.Dir(exe), "vlfs-loopback"); fileExists(p) {
				return p, ""
			}
		}
		return "", "no bench/loopback source above the current directory and no vlfs-loopback beside vlfs (make bench-peers builds it)"
	}
	bin = filepath.Join(root, "bin", "vlfs-loopback")
	logf("peers: building %s", bin)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(root, "bench", "loopback")
	if out, err := cmd.CombinedOutput(); err != nil {
		if fileExists(bin) {
			logf("peers: go build failed (%v); using the existing %s", err, bin)
			return bin, ""
		}
		return "", fmt.Sprintf("go build in bench/loopback: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return bin, ""
}

// findSourceRoot walks up from the current directory to the directory
// holding bench/loopback/go.mod, or returns "".
func findSourceRoot() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if fileExists(filepath.Join(d, "bench", "loopback", "go.mod")) {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
