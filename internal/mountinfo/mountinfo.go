// Package mountinfo reads the kernel's mount table (/proc/self/mountinfo).
// Both FUSE servers of the project (vlfs/fusefs and diskfs) use it to
// tell whether a directory is mounted, by what, and which FUSE connection
// serves it. It holds no state.
package mountinfo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Path is the mount table of this process's mount namespace.
const Path = "/proc/self/mountinfo"

// Entry is one line of the mount table.
type Entry struct {
	Dev    string // "major:minor"
	Point  string // mount point
	FSType string // e.g. "fuse.vlfs", "ext4"
	Source string // e.g. the image path, "/dev/loop0"
}

// ConnID is the entry's name under /sys/fs/fuse/connections (the kernel's
// dev_t: minor alone for the anonymous devices FUSE uses); "" if Dev is
// malformed.
func (e Entry) ConnID() string {
	maj, min, ok := strings.Cut(e.Dev, ":")
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

// Read reads a mount table file.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads mount-table lines; lines it cannot parse are skipped.
func Parse(r io.Reader) ([]Entry, error) {
	var es []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := ParseLine(sc.Text()); ok {
			es = append(es, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	return es, nil
}

// ParseLine parses "id parent maj:min root point opts [tags] - fstype
// source superopts".
func ParseLine(line string) (Entry, bool) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(f) {
		return Entry{}, false
	}
	return Entry{Dev: f[2], Point: Unescape(f[4]), FSType: f[sep+1], Source: Unescape(f[sep+2])}, true
}

// Unescape undoes the kernel's \ooo escapes (space, tab, newline,
// backslash) in mount table fields.
func Unescape(s string) string {
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

// Find returns the topmost mount on dir (an absolute, clean path).
func Find(dir string) (Entry, bool, error) {
	es, err := Read(Path)
	if err != nil {
		return Entry{}, false, err
	}
	var found Entry
	ok := false
	for _, e := range es {
		if e.Point == dir {
			found, ok = e, true
		}
	}
	return found, ok, nil
}

// Type reports whether dir is a mount point and, if so, its file-system
// type.
func Type(dir string) (fstype string, mounted bool, err error) {
	e, ok, err := Find(dir)
	return e.FSType, ok, err
}
