package crashtest

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/vlfs/vlfs/vlfs"
)

// Entry is what the oracle knows of one path: everything the durability
// promises cover. Ino is kept to follow objects across names (rename
// atomicity) but is not compared: hard links are compared through Link.
type Entry struct {
	Type   byte   // 'd' directory, 'f' regular file, 'l' symlink, 'o' other
	Mode   uint32 // permission bits and type bits
	Nlink  uint32
	Size   uint64
	Data   string // file contents or symlink target
	Xattrs string // "name=value" pairs, sorted, ';'-separated
	Link   string // for a file with several names: the first of them in sort order
	Ino    vlfs.Ino
}

// equal compares everything but Ino.
func (e Entry) equal(o Entry) bool {
	e.Ino, o.Ino = 0, 0
	return e == o
}

// Tree is the whole file system as path -> Entry (the root is not listed).
type Tree map[string]Entry

// Equal reports whether two trees hold the same paths with equal entries.
func (t Tree) Equal(o Tree) bool { return maps.EqualFunc(t, o, Entry.equal) }

// snapshotTree walks the file system from the root.
func snapshotTree(fs *vlfs.FS) (Tree, error) {
	t := Tree{}
	if err := walkDir(fs, vlfs.RootIno, "", t); err != nil {
		return nil, err
	}
	t.linkGroups()
	return t, nil
}

func walkDir(fs *vlfs.FS, dir vlfs.Ino, prefix string, t Tree) error {
	ents, err := fs.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("readdir /%s: %w", prefix, err)
	}
	for _, de := range ents {
		if de.Name == "." || de.Name == ".." {
			continue
		}
		p := prefix + de.Name
		e, err := entryOf(fs, de.Ino)
		if err != nil {
			return fmt.Errorf("/%s: %w", p, err)
		}
		t[p] = e
		if e.Type == 'd' {
			if err := walkDir(fs, de.Ino, p+"/", t); err != nil {
				return err
			}
		}
	}
	return nil
}

// S_IFMT bits of the modes vlfs reports.
const (
	modeType = 0o170000
	modeDir  = 0o040000
	modeReg  = 0o100000
	modeLink = 0o120000
)

func entryOf(fs *vlfs.FS, ino vlfs.Ino) (Entry, error) {
	a, err := fs.GetAttr(ino)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Mode: a.Mode, Nlink: a.Nlink, Size: a.Size, Ino: ino, Type: 'o'}
	switch a.Mode & modeType {
	case modeDir:
		e.Type, e.Size = 'd', 0 // a directory's size is its block count: not promised
	case modeLink:
		e.Type = 'l'
		if e.Data, err = fs.Readlink(ino); err != nil {
			return Entry{}, err
		}
	case modeReg:
		e.Type = 'f'
		if e.Data, err = readFile(fs, ino, a.Size); err != nil {
			return Entry{}, err
		}
	}
	if e.Xattrs, err = xattrsOf(fs, ino); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// maxFile bounds what a snapshot reads: workloads are small, and a
// recovered inode claiming a huge size must not exhaust memory.
const maxFile = 64 << 20

func readFile(fs *vlfs.FS, ino vlfs.Ino, size uint64) (string, error) {
	if size > maxFile {
		return "", fmt.Errorf("size %d is over the harness's limit %d", size, maxFile)
	}
	buf := make([]byte, size)
	n, err := fs.Read(ino, 0, buf)
	if err != nil {
		return "", err
	}
	if uint64(n) != size {
		return "", fmt.Errorf("read %d bytes of a %d-byte file", n, size)
	}
	return string(buf), nil
}

func xattrsOf(fs *vlfs.FS, ino vlfs.Ino) (string, error) {
	names, err := fs.Listxattr(ino)
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		v, err := fs.Getxattr(ino, n)
		if err != nil {
			return "", fmt.Errorf("xattr %s: %w", n, err)
		}
		parts = append(parts, n+"="+string(v))
	}
	return strings.Join(parts, ";"), nil
}

// linkGroups sets Link on every non-directory reached by several names.
func (t Tree) linkGroups() {
	first := map[vlfs.Ino]string{}
	count := map[vlfs.Ino]int{}
	for _, p := range t.paths() {
		e := t[p]
		if e.Type == 'd' {
			continue
		}
		count[e.Ino]++
		if _, ok := first[e.Ino]; !ok {
			first[e.Ino] = p
		}
	}
	for p, e := range t {
		if e.Type != 'd' && count[e.Ino] > 1 {
			e.Link = first[e.Ino]
			t[p] = e
		}
	}
}

// paths lists the tree's paths in sort order.
func (t Tree) paths() []string {
	ps := make([]string, 0, len(t))
	for p := range t {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// diff lists how got differs from want, at most limit lines.
func diff(got, want Tree, limit int) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < limit {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	for _, p := range want.paths() {
		g, ok := got[p]
		if !ok {
			add("/%s missing (want %s)", p, want[p].brief())
			continue
		}
		if w := want[p]; !g.equal(w) {
			add("/%s differs: %s", p, entryDiff(g, w))
		}
	}
	for _, p := range got.paths() {
		if _, ok := want[p]; !ok {
			add("/%s unexpected (%s)", p, got[p].brief())
		}
	}
	return out
}

// distance counts the paths on which two trees differ.
func distance(a, b Tree) int {
	n := 0
	for p, e := range a {
		if o, ok := b[p]; !ok || !e.equal(o) {
			n++
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			n++
		}
	}
	return n
}

func entryDiff(g, w Entry) string {
	var parts []string
	if g.Type != w.Type {
		parts = append(parts, fmt.Sprintf("type %c want %c", g.Type, w.Type))
	}
	if g.Mode != w.Mode {
		parts = append(parts, fmt.Sprintf("mode %o want %o", g.Mode, w.Mode))
	}
	if g.Nlink != w.Nlink {
		parts = append(parts, fmt.Sprintf("nlink %d want %d", g.Nlink, w.Nlink))
	}
	if g.Size != w.Size {
		parts = append(parts, fmt.Sprintf("size %d want %d", g.Size, w.Size))
	}
	if g.Data != w.Data {
		parts = append(parts, "content differs"+firstDiff(g.Data, w.Data))
	}
	if g.Xattrs != w.Xattrs {
		parts = append(parts, fmt.Sprintf("xattrs %q want %q", g.Xattrs, w.Xattrs))
	}
	if g.Link != w.Link {
		parts = append(parts, fmt.Sprintf("hard link to %q want %q", g.Link, w.Link))
	}
	return strings.Join(parts, ", ")
}

func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf(" at byte %d", i)
		}
	}
	return fmt.Sprintf(" (lengths %d and %d)", len(a), len(b))
}

func (e Entry) brief() string {
	switch e.Type {
	case 'd':
		return "dir"
	case 'l':
		return "symlink to " + e.Data
	}
	return fmt.Sprintf("%c %d bytes nlink %d", e.Type, e.Size, e.Nlink)
}
