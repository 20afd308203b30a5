package fusefs

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	dev    string // "major:minor"
	point  string
	fstype string
	source string
}

// connID is the entry's name under /sys/fs/fuse/connections (the kernel's
// dev_t: minor alone for the anonymous devices FUSE uses).
func (e mountEntry) connID() string {
	maj, min, ok := strings.Cut(e.dev, ":")
	if !ok {
		return ""
	}
	a, err1 := strconv.ParseUint(maj, 10, 32)
	b, err2 := strconv.ParseUint(min, 10, 32)
	if err1 != nil || err2 != nil {
		return ""
	}
	return strconv.FormatUint(a<<20|b, 10)
}

// MountType reports whether dir (an absolute, clean path) is a mount point
// and, if so, its file-system type as /proc/self/mountinfo says
// ("fuse.vlfs" for a vlfs mount).
func MountType(dir string) (fstype string, mounted bool, err error) {
	e, ok, err := findMount(dir)
	return e.fstype, ok, err
}

// findMount returns the topmost mount on dir.
func findMount(dir string) (mountEntry, bool, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return mountEntry{}, false, fmt.Errorf("reading the mount table: %w", err)
	}
	defer f.Close()
	var found mountEntry
	ok := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, good := parseMountInfo(sc.Text()); good && e.point == dir {
			found, ok = e, true
		}
	}
	if err := sc.Err(); err != nil {
		return mountEntry{}, false, fmt.Errorf("reading the mount table: %w", err)
	}
	return found, ok, nil
}

// parseMountInfo parses "id parent maj:min root point opts [tags] - fstype
// source superopts".
func parseMountInfo(line string) (mountEntry, bool) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(f) {
		return mountEntry{}, false
	}
	return mountEntry{dev: f[2], point: unescapeOctal(f[4]), fstype: f[sep+1], source: unescapeOctal(f[sep+2])}, true
}

// unescapeOctal undoes the kernel's \ooo escapes (space, tab, newline,
// backslash) in mount table fields.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// MountsOf returns the mount points of the vlfs mounts whose source (the
// fsname option; `vlfs mount` sets it to the absolute image path) is source.
func MountsOf(source string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	defer f.Close()
	var dirs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := parseMountInfo(sc.Text()); ok && e.fstype == "fuse.vlfs" && e.source == source {
			dirs = append(dirs, e.point)
		}
	}
	return dirs, sc.Err()
}
