package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// The scale targets of issue 3 (docs/vlfs-format.md), measured on the wall
// clock in this process (no FUSE): the mount time of a clean 1 GiB image
// holding 100,000 files, and the resident memory of a mount of an image
// holding 1,000,000 files.
const (
	ScaleMountTargetMs = 1000.0
	ScaleRSSTargetMiB  = 256.0
)

// ScaleConfig configures Scale. Zero values pick the sizes.
type ScaleConfig struct {
	Model         *disk.Model
	Dir           string // where the images are made (and removed); "" means os.TempDir()
	MountFiles    int    // files in the mount-time image (100,000)
	MountImageMiB int    // its size (1024)
	FileKiB       int    // each file's size in the mount-time image (4)
	MemFiles      int    // empty files in the memory image (1,000,000)
	MemImageMiB   int    // its size (2048)
	Dirs          int    // directories the files are spread over (100 per 100,000 files)
	Mounts        int    // timed mounts of the mount-time image (3)
	// The large-disk rows (issue 32): a sparse image of LargeGiB on
	// LargeModel, empty and then holding LargeFiles empty files. No
	// large rows when LargeGiB is 0.
	LargeModel *disk.Model
	LargeGiB   int
	LargeFiles int
	Progress   io.Writer
}

func (c *ScaleConfig) defaults() error {
	if c.Model == nil {
		return errors.New("bench scale: no disk model")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MountFiles, 100000)
	def(&c.MountImageMiB, 1024)
	def(&c.FileKiB, 4)
	def(&c.MemFiles, 1000000)
	def(&c.MemImageMiB, 2048)
	def(&c.Mounts, 3)
	if c.LargeGiB > 0 && c.LargeModel == nil {
		return errors.New("bench scale: no disk model for the large image")
	}
	for _, v := range []int{c.MountFiles, c.MountImageMiB, c.FileKiB, c.MemFiles, c.MemImageMiB, c.Dirs, c.Mounts, c.LargeGiB, c.LargeFiles} {
		if v < 0 {
			return fmt.Errorf("bench scale: sizes and counts must be positive, got %d", v)
		}
	}
	return nil
}

// Scale measures the two scale targets and returns one row for each.
func Scale(cfg ScaleConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "vlfs-bench-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	steps := 2
	if cfg.LargeGiB > 0 {
		steps++
	}
	p := NewProgress(cfg.Progress, "bench scale", steps)
	defer p.Done()
	rep := &Report{
		Bench: "scale",
		Disk:  scaleDisks(cfg),
		Clock: ClockWall,
		Params: map[string]any{
			"go":         runtime.Version(),
			"gomaxprocs": runtime.GOMAXPROCS(0),
			"mounts":     cfg.Mounts,
		},
		Columns: []string{"target", "disk", "goal", "files", "dirs", "file_kib", "image_mib",
			"mkfs_ms", "populate_ms", "mount_ms", "mount_max_ms", "check_ms",
			"heap_inuse_mib", "rss_mib", "peak_rss_mib", "met"},
		Notes: []string{
			"wall clock, in this process through the vlfs API (no FUSE); the disk model only sets the image's geometry",
			"mount: a clean mount (after vlfs umount) of the image; mount_ms is the median of the timed mounts, mount_max_ms the slowest; check_ms is one fs.Check",
			"memory: the image is populated, unmounted, the Go heap returned to the OS and the peak RSS reset (/proc/self/clear_refs), then mounted and 1 directory in 10 listed with one lookup in each; rss_mib is VmRSS then, peak_rss_mib VmHWM since the reset",
			"goal: mount_ms <= 1000 for 100,000 files in 1 GiB; rss_mib and peak_rss_mib <= 256 MiB for 1,000,000 files",
			"large (issue 32): a sparse image on the large disk; mkfs_ms includes creating the file; mount_ms is one clean mount, rss_mib the memory at rest after it and a walk of 1 directory in 10, check_ms one fs.Check after that; goal: mkfs_ms <= 10000, mount_ms <= 1000, rss_mib <= 256",
		},
	}
	row, err := scaleMount(cfg, filepath.Join(dir, "mount.img"))
	if err != nil {
		return nil, err
	}
	rep.Rows = append(rep.Rows, row)
	p.Step("mount time")
	row, err = scaleMemory(cfg, filepath.Join(dir, "memory.img"))
	if err != nil {
		return nil, err
	}
	rep.Rows = append(rep.Rows, row)
	p.Step("memory")
	if cfg.LargeGiB > 0 {
		rows, err := scaleLarge(cfg, dir)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, rows...)
		p.Step("large disk")
	}
	if _, single := rep.Disk["name"]; !single {
		for _, r := range rep.Rows {
			if r["disk"] == nil {
				r["disk"] = cfg.Model.Name
			}
		}
	}
	return rep, nil
}

// scaleDisks is the report's disk: the model's parameters, or both
// models' keyed by name when the large rows use another one.
func scaleDisks(cfg ScaleConfig) map[string]any {
	if cfg.LargeGiB == 0 || cfg.LargeModel.Name == cfg.Model.Name {
		return cfg.Model.Params()
	}
	return map[string]any{cfg.Model.Name: cfg.Model.Params(), cfg.LargeModel.Name: cfg.LargeModel.Params()}
}

// scaleDirs is how many directories files are spread over.
func scaleDirs(cfg ScaleConfig, files int) int {
	if cfg.Dirs > 0 {
		return cfg.Dirs
	}
	return max(1, files/1000)
}

// scaleImage makes an image of sizeMiB holding files files of fileKiB,
// spread over dirs directories, and unmounts it cleanly.
func scaleImage(cfg ScaleConfig, path string, sizeMiB, files, dirs, fileKiB int) (time.Duration, error) {
	dev, err := device.OpenFile(path, device.FileOptions{Create: true, Size: int64(sizeMiB) << 20})
	if err != nil {
		return 0, err
	}
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: cfg.Model}); err != nil {
		dev.Close()
		return 0, err
	}
	return scalePopulate(dev, files, dirs, fileKiB)
}

// scalePopulate mounts the image on dev, adds files files of fileKiB
// spread over dirs new directories, and unmounts it cleanly (closing dev).
func scalePopulate(dev device.Device, files, dirs, fileKiB int) (time.Duration, error) {
	fs, err := vlfs.Mount(dev, vlfs.Options{})
	if err != nil {
		dev.Close()
		return 0, err
	}
	t0 := time.Now()
	data := make([]byte, fileKiB<<10)
	per := (files + dirs - 1) / dirs
	for d, made := 0, 0; made < files; d++ {
		da, err := fs.Mkdir(vlfs.RootIno, fmt.Sprintf("d%05d", d), 0o755, 0, 0)
		if err != nil {
			fs.Close()
			return 0, err
		}
		for i := 0; i < per && made < files; i, made = i+1, made+1 {
			a, err := fs.Create(da.Ino, fmt.Sprintf("file-%07d", i), 0o644, 0, 0)
			if err == nil && len(data) > 0 {
				_, err = fs.Write(a.Ino, 0, data)
			}
			if err != nil {
				fs.Close()
				return 0, fmt.Errorf("populating: file %d: %w", made, err)
			}
			fs.Forget(a.Ino, 1)
		}
		fs.Forget(da.Ino, 1)
	}
	if err := fs.Close(); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func scaleMount(cfg ScaleConfig, path string) (map[string]any, error) {
	dirs := scaleDirs(cfg, cfg.MountFiles)
	pop, err := scaleImage(cfg, path, cfg.MountImageMiB, cfg.MountFiles, dirs, cfg.FileKiB)
	if err != nil {
		return nil, err
	}
	var times []float64
	var check time.Duration
	for i := range cfg.Mounts {
		dev, err := device.OpenFile(path, device.FileOptions{})
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		fs, err := vlfs.Mount(dev, vlfs.Options{})
		if err != nil {
			dev.Close()
			return nil, err
		}
		times = append(times, ms(time.Since(t0)))
		if i == 0 {
			t0 = time.Now()
			err = fs.Check()
			check = time.Since(t0)
		}
		if cerr := fs.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(times)
	med := times[len(times)/2]
	return map[string]any{
		"target": "mount", "files": cfg.MountFiles, "dirs": dirs, "file_kib": cfg.FileKiB, "image_mib": cfg.MountImageMiB,
		"populate_ms": ms(pop), "mount_ms": med, "mount_max_ms": times[len(times)-1], "check_ms": ms(check),
		"goal": "mount_ms at most 1000", "met": med <= ScaleMountTargetMs,
	}, nil
}

func scaleMemory(cfg ScaleConfig, path string) (map[string]any, error) {
	dirs := scaleDirs(cfg, cfg.MemFiles)
	pop, err := scaleImage(cfg, path, cfg.MemImageMiB, cfg.MemFiles, dirs, 0)
	if err != nil {
		return nil, err
	}
	r, err := mountAtRest(path, dirs, false)
	if err != nil {
		return nil, err
	}
	rss, hwm := r.rssKiB, r.hwmKiB
	row := map[string]any{
		"target": "memory", "files": cfg.MemFiles, "dirs": dirs, "file_kib": 0, "image_mib": cfg.MemImageMiB,
		"populate_ms": ms(pop), "mount_ms": ms(r.mount),
		"heap_inuse_mib": mib(int64(r.heapInuse)), "rss_mib": mib(rss << 10), "peak_rss_mib": mib(hwm << 10),
		"goal": "rss_mib, peak_rss_mib at most 256",
		"met":  rss >= 0 && hwm >= 0 && mib(max(rss, hwm)<<10) <= ScaleRSSTargetMiB,
	}
	if !r.reset {
		row["goal"] = "rss_mib, peak_rss_mib at most 256 (peak not reset: it includes populating)"
	}
	return row, nil
}

// atRest is what mountAtRest measured.
type atRest struct {
	mount, check   time.Duration
	heapInuse      uint64
	rssKiB, hwmKiB int64 // VmRSS and VmHWM; -1 where /proc does not say
	reset          bool  // the peak was reset before the mount
}

// mountAtRest returns the heap to the OS and resets the peak RSS, mounts
// the image at path, walks dirs (scaleWalk), reads the memory at rest and,
// with check, times one fs.Check; then closes it.
func mountAtRest(path string, dirs int, check bool) (atRest, error) {
	var r atRest
	debug.FreeOSMemory()
	r.reset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	dev, err := device.OpenFile(path, device.FileOptions{})
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	fs, err := vlfs.Mount(dev, vlfs.Options{})
	if err != nil {
		dev.Close()
		return r, err
	}
	r.mount = time.Since(t0)
	err = scaleWalk(fs, dirs)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.heapInuse = m.HeapInuse
	r.rssKiB, r.hwmKiB = procKiB("VmRSS"), procKiB("VmHWM")
	if err == nil && check {
		t0 = time.Now()
		err = fs.Check()
		r.check = time.Since(t0)
	}
	if cerr := fs.Close(); err == nil {
		err = cerr
	}
	return r, err
}

// scaleWalk lists one directory in ten and looks up a name in each, so
// the memory figure includes loaded directories and inodes.
func scaleWalk(fs *vlfs.FS, dirs int) error {
	for d := 0; d < dirs; d += 10 {
		da, err := fs.Lookup(vlfs.RootIno, fmt.Sprintf("d%05d", d))
		if err != nil {
			return err
		}
		ents, err := fs.ReadDir(da.Ino)
		if err != nil {
			return err
		}
		if len(ents) > 2 {
			if _, err := fs.Lookup(da.Ino, "file-0000000"); err != nil {
				return err
			}
		}
	}
	return nil
}

// procKiB reads a "Key: N kB" line of /proc/self/status; -1 if missing.
func procKiB(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n
				}
			}
		}
	}
	return -1
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(b int64) float64 { return float64(b) / (1 << 20) }
