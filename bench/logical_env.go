package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrUnavailable means a tool the benchmark needs is missing here; the
// message says which and how to get it.
var ErrUnavailable = errors.New("bench: needed tool unavailable")

// logicalEnv is what this machine offers the logical benchmark.
type logicalEnv struct {
	upper  string // "kernel-ext4" or "fuse2fs"
	driver string // "fio" or "go"
	stack  string // the layers above the exported disk, for row labels
}

// probeLogicalEnv picks the upper file system and the driver, trying a
// kernel loop mount for real before choosing the kernel's ext4.
func probeLogicalEnv(cfg *LogicalConfig) (logicalEnv, error) {
	var env logicalEnv
	for _, p := range []string{"fusermount3", "mkfs.ext4"} {
		if _, err := exec.LookPath(p); err != nil {
			return env, fmt.Errorf("logical: needs %s (packages fuse3, e2fsprogs: make deps): %w", p, ErrUnavailable)
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return env, fmt.Errorf("logical: needs /dev/fuse: %v: %w", err, ErrUnavailable)
	}
	upper, err := chooseUpper(cfg)
	if err != nil {
		return env, err
	}
	env.upper, env.stack = upper, "ext4/loop"
	if upper == "fuse2fs" {
		env.stack = "fuse2fs"
	}
	env.driver, err = chooseDriver(cfg.Driver)
	return env, err
}

func chooseUpper(cfg *LogicalConfig) (string, error) {
	switch cfg.Upper {
	case "", "kernel":
		why := kernelLoopWorks(cfg.ShmDir)
		if why == "" {
			return "kernel-ext4", nil
		}
		if cfg.Upper == "kernel" {
			return "", fmt.Errorf("logical: the kernel's ext4 over a loop device does not work here: %s: %w", why, ErrUnavailable)
		}
		cfg.Logf("kernel ext4 unavailable (%s); using fuse2fs", why)
		fallthrough
	case "fuse2fs":
		if _, err := exec.LookPath("fuse2fs"); err != nil {
			return "", fmt.Errorf("logical: needs fuse2fs (package fuse2fs), or root for the kernel's ext4: %w", ErrUnavailable)
		}
		return "fuse2fs", nil
	}
	return "", fmt.Errorf("logical: upper %q: want kernel or fuse2fs: %w", cfg.Upper, ErrUnavailable)
}

// kernelLoopWorks mounts a tiny ext4 image over a loop device and says why
// not, or "".
func kernelLoopWorks(tmp string) string {
	if os.Geteuid() != 0 {
		return "not root"
	}
	dir, err := os.MkdirTemp(tmp, "vlfs-loop-probe-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	img, mnt := filepath.Join(dir, "img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		return err.Error()
	}
	if err := os.Truncate(img, 8<<20); err != nil {
		return err.Error()
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		return fmt.Sprintf("mkfs.ext4: %v %s", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("mount", "-t", "ext4", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		return fmt.Sprintf("mount -o loop: %v %s", err, strings.TrimSpace(string(out)))
	}
	exec.Command("umount", mnt).Run()
	return ""
}

func chooseDriver(want string) (string, error) {
	_, err := exec.LookPath("fio")
	switch {
	case want == "go", want == "" && err != nil:
		return "go", nil
	case want == "fio" && err != nil:
		return "", fmt.Errorf("logical: --driver fio: fio is not installed (package fio): %w", ErrUnavailable)
	case want == "fio", want == "":
		return "fio", nil
	}
	return "", fmt.Errorf("logical: driver %q: want fio or go: %w", want, ErrUnavailable)
}

// mountUpper mounts the upper file system from disk (a file) on dir.
func (e logicalEnv) mountUpper(disk, dir string) error {
	var cmd *exec.Cmd
	if e.upper == "kernel-ext4" {
		cmd = exec.Command("mount", "-t", "ext4", "-o", "loop", disk, dir)
	} else {
		cmd = exec.Command("fuse2fs", disk, dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mounting %s on %s: %v: %s", e.upper, dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// unmountUpper unmounts it.
func (e logicalEnv) unmountUpper(dir string) error {
	cmd := exec.Command("umount", dir)
	if e.upper == "fuse2fs" {
		cmd = exec.Command("fusermount3", "-u", dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("unmounting %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mkfsExt4 formats disk with 4 KiB blocks (mke2fs picks 1 KiB for small
// disks, which would turn every block write into read-modify-write) and no
// lazy initialisation (no background writes during the measurement);
// extra goes to mkfs.ext4 before the disk.
func mkfsExt4(disk string, extra ...string) error {
	args := append([]string{"-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0"}, extra...)
	out, err := exec.Command("mkfs.ext4", append(args, disk)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mkfs.ext4 %s: %v: %s", disk, err, strings.TrimSpace(string(out)))
	}
	return nil
}
