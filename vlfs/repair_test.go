package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// repairFixture is a closed image holding a small tree, with the inode
// numbers of its parts and the content each file must keep.
type repairFixture struct {
	dev              *device.Mem
	root, d, e, f, g Ino // /d, /d/e (directory), /d/f, /g
	h                Ino // /d/e/h
	deep             Ino // /deep, one block below the double-indirect root
	contents         map[string][]byte
}

func newRepairFixture(t *testing.T) *repairFixture {
	t.Helper()
	x := &repairFixture{dev: newFormatted(t, 8<<20), root: RootIno, contents: map[string][]byte{}}
	fs := must(Mount(noClose{x.dev}, Options{})).ok(t)
	x.d = must(fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t).Ino
	x.e = must(fs.Mkdir(x.d, "e", 0o755, 0, 0)).ok(t).Ino
	x.f = x.file(t, fs, x.d, "f", "/d/f", 9000)
	x.g = x.file(t, fs, RootIno, "g", "/g", 70000) // uses an indirect block
	x.h = x.file(t, fs, x.e, "h", "/d/e/h", 100)
	// Below the double-indirect root: a numbered leaf.
	x.deep = must(fs.Create(RootIno, "deep", 0o644, 0, 0)).ok(t).Ino
	must(fs.Write(x.deep, deepOffset, []byte("deep"))).ok(t)
	x.contents["/deep"] = append(make([]byte, deepOffset), "deep"...)
	must(0, fs.Close()).ok(t)
	return x
}

func (x *repairFixture) file(t *testing.T, fs *FS, dir Ino, name, path string, n int) Ino {
	t.Helper()
	a := must(fs.Create(dir, name, 0o644, 0, 0)).ok(t)
	b := bytes.Repeat([]byte(name), n)[:n]
	must(fs.Write(a.Ino, 0, b)).ok(t)
	x.contents[path] = b
	return a.Ino
}

// damage mounts the image, applies fn and closes (committing the damage).
func (x *repairFixture) damage(t *testing.T, fn func(fs *FS) error) {
	t.Helper()
	fs := must(Mount(noClose{x.dev}, Options{})).ok(t)
	if err := fn(fs); err != nil {
		t.Fatalf("surgery: %v", err)
	}
	if err := fs.Close(); err != nil {
		t.Fatalf("close after surgery: %v", err)
	}
}

// TestRepair damages an image in one way per case: a read-only check must
// find that kind of damage, Repair must fix it (or, for damage it cannot
// fix, change nothing), and every file still reachable must keep its bytes.
func TestRepair(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(x *repairFixture, fs *FS) error
		want     FindingKind
		fixed    bool
		lostPath map[string]string // file path before -> path after repair
		// cut is the length a truncated file keeps, from the geometry
		cut map[string]func(g geometry) uint64
	}{
		{"link count too high", func(x *repairFixture, fs *FS) error { return fs.SurgerySetNlink(x.f, 5) }, FindLinkCount, true, nil, nil},
		{"link count zero but named", func(x *repairFixture, fs *FS) error { return fs.SurgerySetNlink(x.g, 0) }, FindLinkCount, true, nil, nil},
		{"directory link count", func(x *repairFixture, fs *FS) error { return fs.SurgerySetNlink(x.d, 7) }, FindLinkCount, true, nil, nil},
		{"block count", func(x *repairFixture, fs *FS) error { return fs.SurgerySetBlocks(x.g, 2) }, FindBlockCount, true, nil, nil},
		{"size below blocks", func(x *repairFixture, fs *FS) error { return fs.SurgerySetSize(x.f, 10) }, FindSize, true, nil, nil},
		{"wrong parent", func(x *repairFixture, fs *FS) error { return fs.SurgerySetParent(x.e, RootIno) }, FindParent, true, nil, nil},
		{"entry names a free inode", func(x *repairFixture, fs *FS) error { return fs.SurgeryAddEntry(x.d, "ghost", 999, 0o100000) }, FindBadEntry, true, nil, nil},
		{"entry with the wrong type", func(x *repairFixture, fs *FS) error {
			if err := fs.SurgeryDropEntry(x.d, "f"); err != nil {
				return err
			}
			return fs.SurgeryAddEntry(x.d, "f", x.f, 0o020000)
		}, FindBadEntry, true, nil, nil},
		{"orphaned file", func(x *repairFixture, fs *FS) error { return fs.SurgeryDropEntry(RootIno, "g") }, FindUnreachable, true,
			map[string]string{"/g": "/lost+found/#%d"}, nil},
		{"orphaned directory tree", func(x *repairFixture, fs *FS) error { _, err := fs.SurgeryOrphan(x.e); return err }, FindUnreachable, true,
			map[string]string{"/d/e/h": "/lost+found/#%d/h"}, nil},
		{"unlinked, not open", func(x *repairFixture, fs *FS) error {
			if err := fs.SurgeryDropEntry(x.d, "f"); err != nil {
				return err
			}
			return fs.SurgerySetNlink(x.f, 0)
		}, FindUnlinked, true, map[string]string{"/d/f": ""}, nil},
		{"leaked inode block", func(x *repairFixture, fs *FS) error { _, err := fs.SurgeryLeakBlock(); return err }, FindLeakedBlock, true, nil, nil},
		{"leaked node", func(x *repairFixture, fs *FS) error { _, err := fs.SurgeryLeakNode(x.g); return err }, FindLeakedBlock, true, nil, nil},
		// The leaf's blocks cannot be found: the file is cut where the
		// leaf began (a hole would read zeros where it had data).
		{"tree names an unplaced node", func(x *repairFixture, fs *FS) error { return fs.SurgeryUnplaceNode(x.deep) }, FindMount, true, nil,
			map[string]func(geometry) uint64{"/deep": func(g geometry) uint64 { return g.rootBase(1) * uint64(g.bs) }}},
		{"shared block", func(x *repairFixture, fs *FS) error { return fs.SurgeryShareBlock(x.h, 0, x.f) }, FindMount, false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newRepairFixture(t)
			x.damage(t, func(fs *FS) error { return tt.damage(x, fs) })
			found := must(CheckDevice(noClose{x.dev}, Options{ReadOnly: true})).ok(t)
			if !hasKind(found, tt.want) {
				t.Fatalf("check found %v, want a %q finding", found, tt.want)
			}
			before := bytes.Clone(x.dev.Bytes())
			res := must(Repair(x.dev, Options{})).ok(t)
			t.Logf("fixed: %q", res.Fixed)
			if !tt.fixed {
				if len(res.Left) == 0 || len(res.Fixed) != 0 || !bytes.Equal(before, x.dev.Bytes()) {
					t.Fatalf("unfixable damage: left %v, fixed %q, image changed %v", res.Left, res.Fixed, !bytes.Equal(before, x.dev.Bytes()))
				}
				return
			}
			if len(res.Left) != 0 || len(res.Fixed) == 0 {
				t.Fatalf("after repair: left %v, fixed %q", res.Left, res.Fixed)
			}
			ro := must(Mount(noClose{x.dev}, Options{ReadOnly: true})).ok(t)
			g := ro.geo
			must(0, ro.Close()).ok(t)
			for path, n := range tt.cut {
				x.contents[path] = x.contents[path][:n(g)]
			}
			x.verify(t, tt.lostPath)
		})
	}
}

// verify mounts the repaired image read-write (a normal mount), checks it
// and reads every file at its path (moved ones at their lost+found path,
// "" for files rightly reclaimed).
func (x *repairFixture) verify(t *testing.T, moved map[string]string) {
	t.Helper()
	fs := must(Mount(noClose{x.dev}, Options{})).ok(t)
	defer fs.Close()
	if err := fs.Check(); err != nil {
		t.Fatalf("check after repair and remount: %v", err)
	}
	ino := map[string]Ino{"/d/f": x.f, "/g": x.g, "/d/e/h": x.h, "/d/e": x.e, "/deep": x.deep}
	for path, want := range x.contents {
		p := path
		if m, ok := moved[path]; ok {
			if m == "" {
				continue
			}
			top := ino[path]
			if path == "/d/e/h" {
				top = x.e
			}
			p = fmt.Sprintf(m, top)
		}
		got, err := readPath(fs, p)
		// A file grown to cover its blocks reads its bytes then zeros.
		if err != nil || len(got) < len(want) || !bytes.Equal(got[:len(want)], want) || bytes.ContainsFunc(got[len(want):], func(r rune) bool { return r != 0 }) {
			t.Errorf("%s (was %s): %d bytes, err %v; want %d bytes", p, path, len(got), err, len(want))
		}
	}
}

// readPath resolves an absolute path and reads the whole file.
func readPath(fs *FS, path string) ([]byte, error) {
	ino := RootIno
	for _, name := range splitPath(path) {
		a, err := fs.Lookup(ino, name)
		if err != nil {
			return nil, err
		}
		ino = a.Ino
	}
	a, err := fs.GetAttr(ino)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, a.Size)
	n, err := fs.Read(ino, 0, buf)
	if err != nil {
		return nil, err
	}
	if uint64(n) != a.Size {
		return nil, errors.New("short read")
	}
	return buf, nil
}

func splitPath(p string) []string {
	var out []string
	for _, s := range bytes.Split([]byte(p), []byte("/")) {
		if len(s) > 0 {
			out = append(out, string(s))
		}
	}
	return out
}
