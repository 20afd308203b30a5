package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture builds a small tree: /f (file "hello"), /d (dir), /d/g (file),
// /l -> f (symlink), /e (empty dir).
type fixture struct {
	im            *testImage
	fs            *FS
	f, d, g, l, e Ino
}

func newFixture(t *testing.T) *fixture {
	im := newImage(t, 32<<20)
	fs := im.fs
	x := &fixture{im: im, fs: fs}
	x.f = must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t).Ino
	must(fs.Write(x.f, 0, []byte("hello"))).ok(t)
	x.d = must(fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t).Ino
	x.g = must(fs.Create(x.d, "g", 0o644, 0, 0)).ok(t).Ino
	x.l = must(fs.Symlink(RootIno, "l", "f", 0, 0)).ok(t).Ino
	x.e = must(fs.Mkdir(RootIno, "e", 0o700, 0, 0)).ok(t).Ino
	return x
}

func TestNamespaceErrors(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	long := strings.Repeat("n", 256)
	max := strings.Repeat("m", 255)
	tests := []struct {
		name string
		op   func() error
		want error
	}{
		{"lookup missing", func() error { _, err := fs.Lookup(RootIno, "nope"); return err }, ErrNotExist},
		{"lookup in file", func() error { _, err := fs.Lookup(x.f, "a"); return err }, ErrNotDir},
		{"lookup long name", func() error { _, err := fs.Lookup(RootIno, long); return err }, ErrNameTooLong},
		{"lookup bad ino", func() error { _, err := fs.Lookup(999, "a"); return err }, ErrNotExist},
		{"create exists", func() error { _, err := fs.Create(RootIno, "f", 0o644, 0, 0); return err }, ErrExist},
		{"create dot", func() error { _, err := fs.Create(RootIno, ".", 0o644, 0, 0); return err }, ErrExist},
		{"create slash", func() error { _, err := fs.Create(RootIno, "a/b", 0o644, 0, 0); return err }, ErrInvalid},
		{"create empty", func() error { _, err := fs.Create(RootIno, "", 0o644, 0, 0); return err }, ErrInvalid},
		{"create long", func() error { _, err := fs.Create(RootIno, long, 0o644, 0, 0); return err }, ErrNameTooLong},
		{"create 255", func() error { _, err := fs.Create(RootIno, max, 0o644, 0, 0); return err }, nil},
		{"create in file", func() error { _, err := fs.Create(x.f, "a", 0o644, 0, 0); return err }, ErrNotDir},
		{"mkdir exists", func() error { _, err := fs.Mkdir(RootIno, "d", 0o755, 0, 0); return err }, ErrExist},
		{"mknod dir type", func() error { _, err := fs.Mknod(RootIno, "n", syscall.S_IFDIR|0o755, 0, 0, 0); return err }, ErrInvalid},
		{"symlink empty", func() error { _, err := fs.Symlink(RootIno, "s", "", 0, 0); return err }, ErrInvalid},
		{"symlink huge", func() error { _, err := fs.Symlink(RootIno, "s", strings.Repeat("x", 4096), 0, 0); return err }, ErrNameTooLong},
		{"readlink file", func() error { _, err := fs.Readlink(x.f); return err }, ErrInvalid},
		{"link dir", func() error { _, err := fs.Link(x.d, RootIno, "dd"); return err }, ErrPerm},
		{"link exists", func() error { _, err := fs.Link(x.f, RootIno, "d"); return err }, ErrExist},
		{"unlink missing", func() error { return fs.Unlink(RootIno, "nope") }, ErrNotExist},
		{"unlink dir", func() error { return fs.Unlink(RootIno, "d") }, ErrIsDir},
		{"rmdir file", func() error { return fs.Rmdir(RootIno, "f") }, ErrNotDir},
		{"rmdir nonempty", func() error { return fs.Rmdir(RootIno, "d") }, ErrNotEmpty},
		{"rmdir dot", func() error { return fs.Rmdir(RootIno, ".") }, ErrInvalid},
		{"rmdir dotdot", func() error { return fs.Rmdir(x.d, "..") }, ErrNotEmpty},
		{"read dir", func() error { _, err := fs.Read(x.d, 0, make([]byte, 10)); return err }, ErrIsDir},
		{"write dir", func() error { _, err := fs.Write(x.d, 0, []byte("x")); return err }, ErrIsDir},
		{"write negative", func() error { _, err := fs.Write(x.f, -1, []byte("x")); return err }, ErrInvalid},
		{"write too big", func() error { _, err := fs.Write(x.f, 1<<62, []byte("x")); return err }, ErrFileTooBig},
		{"truncate dir", func() error { _, err := fs.SetAttr(x.d, SetAttr{Mask: SetSize}); return err }, ErrIsDir},
		{"readdir file", func() error { _, err := fs.ReadDir(x.f); return err }, ErrNotDir},
		{"fallocate collapse range", func() error { return fs.Fallocate(x.f, 0x08, 0, 4096) }, ErrNotSupported},
		{"fallocate zero", func() error { return fs.Fallocate(x.f, 0, 0, 0) }, ErrInvalid},
		{"getattr free", func() error { _, err := fs.GetAttr(12345); return err }, ErrNotExist},
		{"open free", func() error { return fs.Open(12345) }, ErrNotExist},
		{"fsync free", func() error { return fs.Fsync(12345, false) }, ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRenameSemantics(t *testing.T) {
	type setup func(x *fixture)
	tests := []struct {
		name     string
		from, to [2]string // dir name ("" = root, "d", "e"), entry name
		flags    uint32
		want     error
		check    func(t *testing.T, x *fixture)
	}{
		{name: "simple", from: [2]string{"", "f"}, to: [2]string{"", "f2"},
			check: func(t *testing.T, x *fixture) { x.lookupIs(t, RootIno, "f2", x.f); x.missing(t, RootIno, "f") }},
		{name: "overwrite file", from: [2]string{"", "f"}, to: [2]string{"d", "g"},
			check: func(t *testing.T, x *fixture) { x.lookupIs(t, x.d, "g", x.f); x.missing(t, RootIno, "f") }},
		{name: "noreplace", from: [2]string{"", "f"}, to: [2]string{"d", "g"}, flags: RenameNoReplace, want: ErrExist},
		{name: "exchange", from: [2]string{"", "f"}, to: [2]string{"", "d"}, flags: RenameExchange,
			check: func(t *testing.T, x *fixture) { x.lookupIs(t, RootIno, "f", x.d); x.lookupIs(t, RootIno, "d", x.f) }},
		{name: "exchange missing", from: [2]string{"", "f"}, to: [2]string{"", "zz"}, flags: RenameExchange, want: ErrNotExist},
		{name: "dir onto empty dir", from: [2]string{"", "d"}, to: [2]string{"", "e"},
			check: func(t *testing.T, x *fixture) {
				x.lookupIs(t, RootIno, "e", x.d)
				if a := must(x.fs.GetAttr(RootIno)).ok(t); a.Nlink != 3 {
					t.Errorf("root nlink %d, want 3", a.Nlink)
				}
			}},
		{name: "dir onto nonempty dir", from: [2]string{"", "e"}, to: [2]string{"", "d"}, want: ErrNotEmpty},
		{name: "dir onto file", from: [2]string{"", "e"}, to: [2]string{"", "f"}, want: ErrNotDir},
		{name: "file onto dir", from: [2]string{"", "f"}, to: [2]string{"", "e"}, want: ErrIsDir},
		{name: "dir into itself", from: [2]string{"", "d"}, to: [2]string{"d", "x"}, want: ErrInvalid},
		{name: "cross dir move of dir", from: [2]string{"", "e"}, to: [2]string{"d", "e"},
			check: func(t *testing.T, x *fixture) {
				if a := must(x.fs.GetAttr(x.d)).ok(t); a.Nlink != 3 {
					t.Errorf("d nlink %d, want 3", a.Nlink)
				}
				ents := must(x.fs.ReadDir(x.e)).ok(t)
				if ents[1].Ino != x.d {
					t.Errorf(".. of moved dir is %d, want %d", ents[1].Ino, x.d)
				}
			}},
		{name: "missing source", from: [2]string{"", "zz"}, to: [2]string{"", "y"}, want: ErrNotExist},
		{name: "same name", from: [2]string{"", "f"}, to: [2]string{"", "f"},
			check: func(t *testing.T, x *fixture) { x.lookupIs(t, RootIno, "f", x.f) }},
		{name: "bad flags", from: [2]string{"", "f"}, to: [2]string{"", "y"}, flags: 4, want: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFixture(t)
			err := x.fs.Rename(x.dir(tt.from[0]), tt.from[1], x.dir(tt.to[0]), tt.to[1], tt.flags)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			x.im.check()
			if tt.check != nil {
				tt.check(t, x)
				x.im.remount()
				x.fs = x.im.fs
				tt.check(t, x)
			}
		})
	}
}

func (x *fixture) dir(name string) Ino {
	switch name {
	case "d":
		return x.d
	case "e":
		return x.e
	}
	return RootIno
}

func (x *fixture) lookupIs(t *testing.T, dir Ino, name string, want Ino) {
	t.Helper()
	if a := must(x.fs.Lookup(dir, name)).ok(t); a.Ino != want {
		t.Fatalf("%q is inode %d, want %d", name, a.Ino, want)
	}
}

func (x *fixture) missing(t *testing.T, dir Ino, name string) {
	t.Helper()
	_, err := x.fs.Lookup(dir, name)
	wantErr(t, err, ErrNotExist)
}

func TestLinksAndUnlink(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	a := must(fs.Link(x.f, x.d, "f2")).ok(t)
	if a.Nlink != 2 {
		t.Fatalf("nlink %d after link", a.Nlink)
	}
	must(0, fs.Unlink(RootIno, "f")).ok(t)
	x.im.check()
	buf := make([]byte, 10)
	n := must(fs.Read(x.f, 0, buf)).ok(t)
	if string(buf[:n]) != "hello" {
		t.Fatalf("read %q through the second link", buf[:n])
	}
	must(0, fs.Rmdir(RootIno, "e")).ok(t)
	if a := must(fs.GetAttr(RootIno)).ok(t); a.Nlink != 3 {
		t.Fatalf("root nlink %d after rmdir, want 3", a.Nlink)
	}
	x.im.remount()
	if a := must(x.im.fs.GetAttr(x.f)).ok(t); a.Nlink != 1 {
		t.Fatalf("nlink %d after remount", a.Nlink)
	}
}

func TestOpenUnlinkedFile(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(0, fs.Open(x.f)).ok(t)
	must(0, fs.Unlink(RootIno, "f")).ok(t)
	must(fs.Write(x.f, 5, []byte(" world"))).ok(t)
	must(0, fs.Sync()).ok(t)
	x.im.check()
	buf := make([]byte, 20)
	n := must(fs.Read(x.f, 0, buf)).ok(t)
	if string(buf[:n]) != "hello world" {
		t.Fatalf("read %q from unlinked file", buf[:n])
	}
	free := must(fs.StatFS()).ok(t).Bfree
	must(0, fs.Release(x.f)).ok(t)
	fs.Forget(x.f, 1)
	if _, err := fs.GetAttr(x.f); !errors.Is(err, ErrNotExist) {
		t.Fatalf("inode still there after last reference: %v", err)
	}
	if after := must(fs.StatFS()).ok(t).Bfree; after <= free {
		t.Errorf("free blocks %d -> %d after reclaiming", free, after)
	}
}

// TestOrphanReclaimedAtMount: an unlinked but open file whose state was
// committed is reclaimed by the next mount (as after a crash).
func TestOrphanReclaimedAtMount(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(fs.Write(x.g, 0, make([]byte, 100000))).ok(t)
	must(0, fs.Open(x.g)).ok(t)
	must(0, fs.Unlink(x.d, "g")).ok(t)
	must(0, fs.Sync()).ok(t)
	crashed := imageCopy(t, x.im.dev)
	im2 := mountImage(t, crashed, Options{})
	if _, err := im2.fs.GetAttr(x.g); !errors.Is(err, ErrNotExist) {
		t.Fatalf("orphan survived mount: %v", err)
	}
	im2.check()
}

func TestAttrs(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	at := time.Unix(1000, 123456789)
	mt := time.Unix(2000, 987654321)
	a := must(fs.SetAttr(x.f, SetAttr{Mask: SetMode | SetUid | SetGid | SetAtime | SetMtime,
		Mode: 0o4711, Uid: 7, Gid: 8, Atime: at, Mtime: mt})).ok(t)
	check := func(a Attr) {
		t.Helper()
		if a.Mode != syscall.S_IFREG|0o4711 || a.Uid != 7 || a.Gid != 8 || !a.Atime.Equal(at) || !a.Mtime.Equal(mt) {
			t.Fatalf("attrs %+v", a)
		}
	}
	check(a)
	x.im.remount()
	check(must(x.im.fs.GetAttr(x.f)).ok(t))
	fs = x.im.fs
	before := time.Now().Add(-time.Second)
	a = must(fs.SetAttr(x.f, SetAttr{Mask: SetAtimeNow | SetMtimeNow})).ok(t)
	if a.Atime.Before(before) || a.Mtime.Before(before) {
		t.Fatalf("times not set to now: %+v", a)
	}
	n := must(fs.Mknod(RootIno, "dev", syscall.S_IFCHR|0o600, 0x0103, 0, 0)).ok(t)
	p := must(fs.Mknod(RootIno, "fifo", syscall.S_IFIFO|0o600, 0, 0, 0)).ok(t)
	x.im.remount()
	if a := must(x.im.fs.GetAttr(n.Ino)).ok(t); a.Mode != syscall.S_IFCHR|0o600 || a.Rdev != 0x0103 {
		t.Fatalf("device node %+v", a)
	}
	if a := must(x.im.fs.GetAttr(p.Ino)).ok(t); a.Mode != syscall.S_IFIFO|0o600 {
		t.Fatalf("fifo %+v", a)
	}
	if s := must(x.im.fs.Readlink(x.l)).ok(t); s != "f" {
		t.Fatalf("readlink %q", s)
	}
}

func TestTruncate(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	data := bytes.Repeat([]byte{0xab}, 3*4096+100)
	must(fs.Write(x.f, 0, data)).ok(t)
	must(0, fs.Sync()).ok(t)
	must(fs.SetAttr(x.f, SetAttr{Mask: SetSize, Size: 5000})).ok(t)
	must(fs.SetAttr(x.f, SetAttr{Mask: SetSize, Size: 9000})).ok(t)
	want := append(bytes.Repeat([]byte{0xab}, 5000), make([]byte, 4000)...)
	x.readIs(t, x.f, want)
	x.im.remount()
	x.fs = x.im.fs
	x.readIs(t, x.f, want)
	a := must(x.fs.GetAttr(x.f)).ok(t)
	if a.Size != 9000 || a.Blocks != 2*8 {
		t.Fatalf("size %d blocks %d, want 9000 and 16", a.Size, a.Blocks)
	}
}

func (x *fixture) readIs(t *testing.T, ino Ino, want []byte) {
	t.Helper()
	buf := make([]byte, len(want)+100)
	n := must(x.fs.Read(ino, 0, buf)).ok(t)
	if !bytes.Equal(buf[:n], want) {
		t.Fatalf("read %d bytes, want %d; first difference at %d", n, len(want), firstDiff(buf[:n], want))
	}
}

func TestSparseAndHugeFile(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	// The first direct, single, double and triple indirect blocks' ranges
	// (at the image's geometry: version 4 has 8 direct pointers and 339
	// per indirect block), and half the largest file.
	direct, per := int64(fs.geo.direct), int64(fs.geo.per)
	huge := int64(fs.geo.maxFileSize() / 2)
	offs := []int64{0, direct * 4096, (direct + per) * 4096, 5 << 30, huge}
	for _, off := range offs {
		must(fs.Write(x.f, off, []byte("marker"))).ok(t)
	}
	check := func() {
		t.Helper()
		a := must(x.fs.GetAttr(x.f)).ok(t)
		if a.Size != uint64(huge+6) {
			t.Fatalf("size %d", a.Size)
		}
		for _, off := range offs {
			buf := make([]byte, 6)
			must(x.fs.Read(x.f, off, buf)).ok(t)
			if string(buf) != "marker" {
				t.Fatalf("at %d read %q", off, buf)
			}
		}
		buf := make([]byte, 4096)
		must(x.fs.Read(x.f, 4<<30, buf)).ok(t)
		if !bytes.Equal(buf, make([]byte, 4096)) {
			t.Fatal("hole not zero")
		}
	}
	check()
	x.im.check()
	x.im.remount()
	x.fs = x.im.fs
	check()
	must(x.fs.SetAttr(x.f, SetAttr{Mask: SetSize, Size: 1 << 30})).ok(t)
	x.im.check()
	must(0, x.fs.Unlink(RootIno, "f")).ok(t)
	x.fs.Forget(x.f, 1)
	x.im.remount()
}

func TestFallocate(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(0, fs.Fallocate(x.f, 0, 100, 3*4096)).ok(t)
	a := must(fs.GetAttr(x.f)).ok(t)
	if a.Size != 100+3*4096 || a.Blocks != 4*8 {
		t.Fatalf("after fallocate size %d blocks %d", a.Size, a.Blocks)
	}
	x.readIs(t, x.f, append([]byte("hello"), make([]byte, 95+3*4096)...))
	x.im.remount()
	x.fs = x.im.fs
	x.readIs(t, x.f, append([]byte("hello"), make([]byte, 95+3*4096)...))
}

func TestXattrs(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(0, fs.Setxattr(x.f, "user.a", []byte("1"), 0)).ok(t)
	must(0, fs.Setxattr(x.f, "user.b", []byte("22"), XattrCreate)).ok(t)
	wantErr(t, fs.Setxattr(x.f, "user.b", []byte("x"), XattrCreate), ErrExist)
	wantErr(t, fs.Setxattr(x.f, "user.c", []byte("x"), XattrReplace), ErrNoXattr)
	wantErr(t, fs.Setxattr(x.f, strings.Repeat("x", 256), nil, 0), ErrXattrRange)
	wantErr(t, fs.Setxattr(x.f, "user.big", make([]byte, 5000), 0), ErrNoSpace)
	_, err := fs.Getxattr(x.f, "user.none")
	wantErr(t, err, ErrNoXattr)
	wantErr(t, fs.Removexattr(x.f, "user.none"), ErrNoXattr)
	x.im.remount()
	fs = x.im.fs
	if v := must(fs.Getxattr(x.f, "user.b")).ok(t); string(v) != "22" {
		t.Fatalf("user.b = %q", v)
	}
	if l := must(fs.Listxattr(x.f)).ok(t); !slices.Equal(l, []string{"user.a", "user.b"}) {
		t.Fatalf("list %v", l)
	}
	must(0, fs.Removexattr(x.f, "user.a")).ok(t)
	must(0, fs.Removexattr(x.f, "user.b")).ok(t)
	x.im.remount()
	if l := must(x.im.fs.Listxattr(x.f)).ok(t); len(l) != 0 {
		t.Fatalf("list after remove %v", l)
	}
}

func TestReadDirAndStatFS(t *testing.T) {
	x := newFixture(t)
	ents := must(x.fs.ReadDir(RootIno)).ok(t)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{".", "..", "d", "e", "f", "l"}) {
		t.Fatalf("readdir %v", names)
	}
	s := must(x.fs.StatFS()).ok(t)
	if s.Bsize != 4096 || s.Namelen != 255 || s.Bfree == 0 || s.Bfree > s.Blocks || s.Files < 6 {
		t.Fatalf("statfs %+v", s)
	}
	st := x.fs.Stats()
	if st.Ops["create"].Count != 2 || st.Ops["write"].Bytes != 5 {
		t.Fatalf("stats ops %+v", st.Ops)
	}
}

func TestReadOnlyMount(t *testing.T) {
	x := newFixture(t)
	must(0, x.fs.Close()).ok(t)
	x.im.fs = nil
	fs := must(Mount(noClose{x.im.dev}, Options{ReadOnly: true})).ok(t)
	defer fs.Close()
	if _, err := fs.Create(RootIno, "new", 0o644, 0, 0); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("create on a read-only mount: %v", err)
	}
	if _, err := fs.Write(x.f, 0, []byte("x")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write on a read-only mount: %v", err)
	}
	wantErr(t, fs.Unlink(RootIno, "f"), ErrReadOnly)
	buf := make([]byte, 5)
	if n, err := fs.Read(x.f, 0, buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	must(0, fs.Sync()).ok(t)
	must(0, fs.Check()).ok(t)
}

// TestBackgroundFlush: unforced writes become durable within the flush
// interval, and buffered data stays under the dirty limit.
func TestBackgroundFlush(t *testing.T) {
	dev := newFormatted(t, 32<<20)
	im := mountImage(t, dev, Options{FlushInterval: 40 * time.Millisecond, DirtyLimitBytes: 64 << 10})
	fs := im.fs
	a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	data := bytes.Repeat([]byte("x"), 1<<20)
	must(fs.Write(a.Ino, 0, data)).ok(t)
	if d := fs.Stats().DirtyBytes; d > 64<<10 {
		t.Fatalf("dirty bytes %d above the 64 KiB limit", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for fs.Stats().Commits == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if fs.Stats().Commits == 0 {
		t.Fatal("no background commit within 5 s")
	}
	crashed := mountImage(t, imageCopy(t, dev), Options{})
	b := must(crashed.fs.Lookup(RootIno, "f")).ok(t)
	buf := make([]byte, len(data))
	if n := must(crashed.fs.Read(b.Ino, 0, buf)).ok(t); n != len(data) || !bytes.Equal(buf, data) {
		t.Fatalf("after the background commit a crash image holds %d bytes", n)
	}
}

// TestBackgroundFlushWithinInterval: an unforced change is committed no
// later than FlushInterval after it was made. The flusher looks every
// quarter interval; the change is made just after one of its looks (right
// after a background commit), the worst case: waiting there for a full
// interval of age made the change wait 5/4 of the interval.
func TestBackgroundFlushWithinInterval(t *testing.T) {
	const interval = 2 * time.Second
	im := mountImage(t, newFormatted(t, 32<<20), Options{FlushInterval: interval})
	fs := im.fs
	waitCommit := func(after int64) time.Duration {
		start := time.Now()
		for fs.Stats().Commits == after && time.Since(start) < 2*interval {
			time.Sleep(2 * time.Millisecond)
		}
		if fs.Stats().Commits == after {
			t.Fatalf("no background commit within %v", 2*interval)
		}
		return time.Since(start)
	}
	must(fs.Create(RootIno, "a", 0o644, 0, 0)).ok(t)
	waitCommit(fs.Stats().Commits)
	before := fs.Stats().Commits
	must(fs.Create(RootIno, "b", 0o644, 0, 0)).ok(t)
	took := waitCommit(before)
	if took > interval+interval/8 {
		t.Fatalf("background commit %v after the change, want at most the flush interval %v", took, interval)
	}
	t.Logf("committed %v after the change (interval %v)", took, interval)
}

// TestEmptyInodeBlocksFreed: once every inode of an inode block is gone,
// the block is freed and dropped from the inode map.
func TestEmptyInodeBlocksFreed(t *testing.T) {
	im := newImage(t, 16<<20)
	fs := im.fs
	must(0, fs.Sync()).ok(t)
	atRest(t, fs)
	before := fs.vol.FreeBlocks()
	for i := range 50 {
		a := must(fs.Create(RootIno, fmt.Sprintf("f%d", i), 0o644, 0, 0)).ok(t)
		fs.Forget(a.Ino, 1)
	}
	must(0, fs.Sync()).ok(t)
	if n := fs.imap.numBlocks(); n < 4 {
		t.Fatalf("%d inode blocks for 52 inodes", n)
	}
	for i := range 50 {
		must(0, fs.Unlink(RootIno, fmt.Sprintf("f%d", i))).ok(t)
	}
	must(0, fs.Sync()).ok(t)
	must(0, fs.Sync()).ok(t) // the second commit makes the first one's frees reusable
	atRest(t, fs)
	for ibn := uint64(1); ibn < fs.imap.numBlocks(); ibn++ {
		if a := fs.imap.addr(ibn); a != 0 {
			t.Errorf("inode block %d still at %d", ibn, a)
		}
	}
	if after := fs.vol.FreeBlocks(); after < before {
		t.Errorf("free blocks %d before, %d after creating and deleting", before, after)
	}
	im.remount()
	a := must(im.fs.Create(RootIno, "again", 0o644, 0, 0)).ok(t)
	if a.Ino != 2 {
		t.Errorf("first free inode number %d, want 2", a.Ino)
	}
}
