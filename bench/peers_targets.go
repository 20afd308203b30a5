package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/zerofill"
)

// peerTarget is one file system under test, mounted (or made) and ready.
type peerTarget interface {
	name() string
	dir() string // where the workloads run
	// dropCaches evicts the host page cache of what backs dir (the image
	// file, the loopback's original tree), so that reads come in cold.
	dropCaches() error
	// counters are the server's own counters (vlfs only; nil otherwise).
	counters() *serverSnapshot
	stop() error
}

// peersEnv is what this machine offers: targets and workload groups to
// skip, each with the reason, and notes for the report.
type peersEnv struct {
	skip  map[string]string
	notes []string
}

// probePeers finds the tools each target and workload needs; a missing one
// skips its rows with a note saying why and how to get it.
func probePeers(cfg PeersConfig) peersEnv {
	env := peersEnv{skip: map[string]string{}}
	skip := env.skipper()
	fuseWhy := fuseUnavailable()
	for _, t := range []string{PeerFuse2fs, PeerLoopback, PeerVLFS} {
		if fuseWhy != "" {
			skip(t, fuseWhy)
		}
	}
	if fuseWhy == "" {
		for _, tool := range []string{"fuse2fs", "mkfs.ext4"} {
			if _, err := exec.LookPath(tool); err != nil {
				skip(PeerFuse2fs, tool+" not installed (packages fuse2fs, e2fsprogs)")
				break
			}
		}
		if cfg.Loopback == "" {
			skip(PeerLoopback, "no vlfs-loopback binary: "+cfg.LoopbackWhy)
		}
	}
	if _, err := exec.LookPath("fio"); err != nil {
		skip("fio", "fio not installed (package fio); its rows are missing")
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		skip("sqlite", "sqlite3 not installed (package sqlite3); its rows are missing")
	}
	if _, err := exec.LookPath("stress-ng"); err != nil {
		skip("mix", "stress-ng not installed (package stress-ng); its rows are missing")
	}
	return env
}

// skipper returns a function that skips what, saying why in a note.
func (env *peersEnv) skipper() func(what, why string) {
	return func(what, why string) {
		env.skip[what] = why
		env.notes = append(env.notes, fmt.Sprintf("skipped %s: %s", what, why))
	}
}

// fuseUnavailable says why FUSE mounts cannot be made here, or "".
func fuseUnavailable() string {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return "no /dev/fuse"
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		return "fusermount3 not installed (package fuse3)"
	}
	return ""
}

// startTarget makes a fresh instance of the named target under cfg.WorkDir.
func startTarget(cfg PeersConfig, name string) (peerTarget, error) {
	base, err := os.MkdirTemp(cfg.WorkDir, "vlfs-peers-"+name+"-")
	if err != nil {
		return nil, err
	}
	var t peerTarget
	switch name {
	case PeerNative:
		t, err = &nativeTarget{root: base}, nil
	case PeerFuse2fs:
		t, err = startFuse2fs(cfg, base)
	case PeerLoopback:
		t, err = startLoopback(cfg, base)
	case PeerVLFS:
		t, err = startVLFS(cfg, base)
	case FullExt4:
		t, err = startExt4Loop(cfg, base)
	default:
		err = fmt.Errorf("unknown target %q", name)
	}
	if err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	return t, nil
}

// nativeTarget is a directory of the host file system.
type nativeTarget struct{ root string }

func (n *nativeTarget) name() string              { return PeerNative }
func (n *nativeTarget) dir() string               { return n.root }
func (n *nativeTarget) dropCaches() error         { return dropTree(n.root) }
func (n *nativeTarget) counters() *serverSnapshot { return nil }
func (n *nativeTarget) stop() error               { return os.RemoveAll(n.root) }

// prepareExt4 makes an image of cfg's size under base formatted as ext4
// (base/ext4.img; mkfs.ext4 with mkfsArgs) and a mount point for it
// (base/mnt).
func prepareExt4(cfg PeersConfig, base string, mkfsArgs ...string) (img, mnt string, err error) {
	img, mnt = filepath.Join(base, "ext4.img"), filepath.Join(base, "mnt")
	if err := makeImage(img, cfg.Sizes.ImageBytes, cfg.SparseImages); err != nil {
		return "", "", err
	}
	if err := mkfsExt4(img, mkfsArgs...); err != nil {
		return "", "", err
	}
	return img, mnt, os.Mkdir(mnt, 0o755)
}

// fuse2fsTarget is an ext4 image file mounted by fuse2fs.
type fuse2fsTarget struct{ base, img, mnt string }

func startFuse2fs(cfg PeersConfig, base string) (peerTarget, error) {
	t := &fuse2fsTarget{base: base}
	var err error
	if t.img, t.mnt, err = prepareExt4(cfg, base); err != nil {
		return nil, err
	}
	if out, err := exec.Command("fuse2fs", t.img, t.mnt).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("fuse2fs %s: %v: %s", t.img, err, strings.TrimSpace(string(out)))
	}
	return t, nil
}

func (t *fuse2fsTarget) name() string              { return PeerFuse2fs }
func (t *fuse2fsTarget) dir() string               { return t.mnt }
func (t *fuse2fsTarget) dropCaches() error         { return dropFile(t.img) }
func (t *fuse2fsTarget) counters() *serverSnapshot { return nil }

func (t *fuse2fsTarget) stop() error {
	if err := fusermountU(t.mnt); err != nil {
		return err
	}
	if err := waitReleased(t.img); err != nil {
		return err
	}
	return os.RemoveAll(t.base)
}

// loopbackTarget is the go-fuse pass-through (bench/loopback) over a
// native directory.
type loopbackTarget struct {
	base, orig, mnt string
	cmd             *exec.Cmd
	done            chan error
}

func startLoopback(cfg PeersConfig, base string) (peerTarget, error) {
	t := &loopbackTarget{base: base, orig: filepath.Join(base, "orig"), mnt: filepath.Join(base, "mnt"), done: make(chan error, 1)}
	for _, d := range []string{t.orig, t.mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	t.cmd = exec.Command(cfg.Loopback, t.orig, t.mnt)
	var stderr strings.Builder
	t.cmd.Stderr = &stderr
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	go func() { t.done <- t.cmd.Wait() }()
	if strings.TrimSpace(line) != "ready" {
		err := <-t.done
		return nil, fmt.Errorf("%s did not mount (%v): %s", cfg.Loopback, err, strings.TrimSpace(stderr.String()))
	}
	return t, nil
}

func (t *loopbackTarget) name() string              { return PeerLoopback }
func (t *loopbackTarget) dir() string               { return t.mnt }
func (t *loopbackTarget) dropCaches() error         { return dropTree(t.orig) }
func (t *loopbackTarget) counters() *serverSnapshot { return nil }

func (t *loopbackTarget) stop() error {
	if err := fusermountU(t.mnt); err != nil {
		t.cmd.Process.Kill()
		<-t.done
		return err
	}
	select {
	case err := <-t.done:
		if err != nil {
			return fmt.Errorf("vlfs-loopback: %w", err)
		}
	case <-time.After(30 * time.Second):
		t.cmd.Process.Kill()
		<-t.done
		return errors.New("vlfs-loopback still running 30 s after the unmount")
	}
	return os.RemoveAll(t.base)
}

// fusermountU unmounts a FUSE mount, retrying while it is busy (a file
// closed a moment ago may still be released).
func fusermountU(dir string) error {
	return whileBusy(func() error {
		if out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("fusermount3 -u %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
		}
		return nil
	})
}

// whileBusy retries an unmount for up to 5 s while it fails: a file
// closed a moment ago may still hold the mount. It returns the last error.
func whileBusy(unmount func() error) error {
	var err error
	for range 50 {
		if err = unmount(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// makeImage creates an image file of size bytes for fuse2fs or vlfs:
// sparse, or (the default) written full of zeros, synced and dropped from
// the page cache, as vlfs mkfs does (internal/zerofill). A disk has no
// holes: a write into a hole of the image makes the host allocate blocks,
// and the host's next fdatasync of the image then commits its journal too,
// which doubled fdatasync's latency here (0.40 against 0.19 ms for 4 KiB
// pwrite+fdatasync). Both image targets get the same image, so neither
// pays it.
func makeImage(path string, size int64, sparse bool) error {
	if err := makeSparse(path, size); err != nil || sparse {
		return err
	}
	if _, err := zerofill.File(path, nil); err != nil {
		return fmt.Errorf("writing image %s: %w", path, err)
	}
	return nil
}

// makeSparse creates a sparse file of size bytes.
func makeSparse(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// dropFile asks the kernel to evict a file's clean pages from the page
// cache (dirty ones are written back first by the fdatasync).
func dropFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		return fmt.Errorf("fdatasync %s: %w", path, err)
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// dropTree is dropFile for every regular file under root.
func dropTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		return dropFile(p)
	})
}
