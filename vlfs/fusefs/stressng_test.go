package fusefs_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
)

// stressors are stress-ng's file-system stressors that run anywhere a
// mount does (not bind-mount, binderfs, fanotify or procfs, which test the
// host; fiemap and verity, which FUSE cannot offer; chattr, inode-flags and
// file-ioctl, which need ioctls FUSE passes on as ENOTTY; io and iomix,
// which call sync(2) and, as root, drop the page caches of the whole
// machine, under the other packages' tests that run alongside).
var stressors = []string{
	"access", "chdir", "chmod", "chown", "copy-file", "dentry", "dir", "dirdeep", "dirmany",
	"dup", "fallocate", "fcntl", "filename", "flock", "fpunch", "fsize", "fstat", "getdent",
	"hdd", "link", "lockf", "lockofd", "mknod", "open", "rename", "symlink",
	"sync-file", "touch", "utime", "xattr",
}

// TestStressNG runs stress-ng's file-system stressors on one mount, all at
// once, each checking its own results (--verify): a third party's torture
// of POSIX paths, concurrently, with the mount's cleanup checking the image
// after. Sizes are capped so that the stressors' files fit the image; a
// full disk is tested elsewhere. stress-ng comes from `make deps`.
func TestStressNG(t *testing.T) {
	bin, err := exec.LookPath("stress-ng")
	if err != nil {
		t.Skip("stress-ng is not installed (make deps installs it)")
	}
	if testing.Short() {
		t.Skip("a 10 s soak; skipped with -short")
	}
	m := fstest.MountFS(t, fstest.Options{Size: 1 << 30})
	args := []string{"--temp-path", m.Dir, "--verify", "--timeout", "10s", "--metrics-brief",
		"--hdd-bytes", "32M", "--fallocate-bytes", "32M",
		"--sync-file-bytes", "32M", "--copy-file-bytes", "128M", "--dirdeep-inodes", "20000"}
	for _, s := range stressors {
		args = append(args, "--"+s, "1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	// Exit status 0 is success; 2 a stressor failed (a verification
	// included), 3 one ran out of resources, 4 one is not implemented here.
	if err != nil {
		t.Fatalf("stress-ng: %v\n%s", err, out)
	}
	if s := string(out); !strings.Contains(s, "successful run completed") {
		t.Fatalf("stress-ng did not report a successful run:\n%s", s)
	}
	t.Logf("stress-ng:\n%s", out)
	rep := m.Server.Report()
	for name, c := range rep.FUSE {
		t.Logf("%-16s %8d requests, %6d errors", name, c.Count, c.Errors)
	}
}
