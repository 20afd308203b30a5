package diskfs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vlfs/vlfs/internal/mountinfo"
)

// Holder is one user of the disk file that unmounting would cut off from
// its disk.
type Holder struct {
	What string // e.g. "ext4 mounted on /mnt/x through /dev/loop0"
	Fix  string // how to release it, e.g. "umount /mnt/x"
}

// holderRoots are where Holders looks; tests point them at a fake tree.
type holderRoots struct {
	sysBlock  string // /sys/block
	proc      string // /proc
	mountInfo string // /proc/self/mountinfo
}

// systemRoots are the real ones.
func systemRoots() holderRoots {
	return holderRoots{sysBlock: "/sys/block", proc: "/proc", mountInfo: mountinfo.Path}
}

// Holders lists what keeps the disk file at path in use: loop devices
// backed by it (/sys/block/loop*/loop/backing_file), file systems mounted
// from it or from those loop devices (the mount table), and processes that
// have it open (/proc/*/fd). Entries it cannot read (other users' processes
// without privilege) are skipped.
func Holders(path string) ([]Holder, error) { return systemRoots().holders(path) }

func (r holderRoots) holders(path string) ([]Holder, error) {
	loops := r.loopsOf(path)
	mounts, err := mountinfo.Read(r.mountInfo)
	if err != nil {
		return nil, err
	}
	var hs []Holder
	for _, m := range mounts {
		if m.Source == path {
			hs = append(hs, Holder{fmt.Sprintf("%s mounted on %s from %s", m.FSType, m.Point, path), "umount " + m.Point})
		}
		for _, l := range loops {
			if m.Source == l {
				hs = append(hs, Holder{fmt.Sprintf("%s mounted on %s through %s", m.FSType, m.Point, l), "umount " + m.Point})
			}
		}
	}
	for _, l := range loops {
		hs = append(hs, Holder{"loop device " + l + " backed by " + path, "losetup -d " + l})
	}
	return append(hs, r.processesWith(path)...), nil
}

// loopsOf returns the loop devices (as /dev/loopN) backed by path.
func (r holderRoots) loopsOf(path string) []string {
	files, _ := filepath.Glob(filepath.Join(r.sysBlock, "loop*", "loop", "backing_file"))
	var loops []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // detached meanwhile
		}
		backing := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
		if backing == path {
			loops = append(loops, "/dev/"+filepath.Base(filepath.Dir(filepath.Dir(f))))
		}
	}
	sort.Strings(loops)
	return loops
}

// processesWith returns the processes with a descriptor open on path.
func (r holderRoots) processesWith(path string) []Holder {
	fds, _ := filepath.Glob(filepath.Join(r.proc, "[0-9]*", "fd", "*"))
	seen := map[string]bool{}
	var hs []Holder
	for _, fd := range fds {
		target, err := os.Readlink(fd)
		if err != nil || strings.TrimSuffix(target, " (deleted)") != path {
			continue
		}
		pid := filepath.Base(filepath.Dir(filepath.Dir(fd)))
		if seen[pid] {
			continue
		}
		seen[pid] = true
		comm, _ := os.ReadFile(filepath.Join(r.proc, pid, "comm"))
		hs = append(hs, Holder{fmt.Sprintf("process %s (%s) has it open", pid, strings.TrimSpace(string(comm))),
			"make it close the file: unmount the file system it serves, or kill " + pid})
	}
	return hs
}

// describeHolders is the refusal message: who holds path and what to do.
func describeHolders(path string, hs []Holder) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%s (%s)", h.What, h.Fix)
	}
	return fmt.Sprintf("%s is still in use: %s", path, strings.Join(parts, "; "))
}
