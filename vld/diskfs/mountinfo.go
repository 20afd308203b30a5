package diskfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// mountInfoPath is the mount table this package reads.
const mountInfoPath = "/proc/self/mountinfo"

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

// MountType reports whether dir (absolute, clean) is a mount point and, if
// so, its type as the mount table says ("fuse.vlfs-disk" for this package).
func MountType(dir string) (fstype string, mounted bool, err error) {
	e, ok, err := findMount(dir)
	return e.fstype, ok, err
}

// findMount returns the topmost mount on dir.
func findMount(dir string) (mountEntry, bool, error) {
	es, err := readMounts(mountInfoPath)
	if err != nil {
		return mountEntry{}, false, err
	}
	var found mountEntry
	ok := false
	for _, e := range es {
		if e.point == dir {
			found, ok = e, true
		}
	}
	return found, ok, nil
}

// readMounts reads a mountinfo file.
func readMounts(path string) ([]mountEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	defer f.Close()
	return parseMounts(f)
}

func parseMounts(r io.Reader) ([]mountEntry, error) {
	var es []mountEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := parseMountInfo(sc.Text()); ok {
			es = append(es, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	return es, nil
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
