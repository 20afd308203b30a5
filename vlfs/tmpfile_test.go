package vlfs

import (
	"bytes"
	"testing"
)

// TestTmpfile: a file made by CreateTmp has no name and no link; Link
// names it, once; one never named is freed when its last reference goes,
// and by the next mount after a crash, with its blocks.
func TestTmpfile(t *testing.T) {
	data := bytes.Repeat([]byte("tmpfile!"), 3000) // 24,000 bytes: 6 blocks
	t.Run("named", func(t *testing.T) {
		im := newImage(t, 16<<20)
		a := must(im.fs.CreateTmp(RootIno, 0o600, 0, 0)).ok(t)
		if a.Nlink != 0 {
			t.Fatalf("nlink %d, want 0", a.Nlink)
		}
		must(0, im.fs.Open(a.Ino)).ok(t)
		must(im.fs.Write(a.Ino, 0, data)).ok(t)
		if ents := must(im.fs.ReadDir(RootIno)).ok(t); len(ents) != 2 { // . and ..
			t.Fatalf("the root lists %v", ents)
		}
		im.check()
		b := must(im.fs.Link(a.Ino, RootIno, "named")).ok(t)
		if b.Nlink != 1 {
			t.Fatalf("nlink %d after Link, want 1", b.Nlink)
		}
		_, err := im.fs.Link(a.Ino, RootIno, "again")
		if err != nil {
			t.Fatalf("a second link of a named file: %v", err)
		}
		must(0, im.fs.Release(a.Ino)).ok(t)
		im.fs.Forget(a.Ino, 3)
		must(0, im.fs.Sync()).ok(t)
		im.remount()
		got := make([]byte, len(data)+10)
		n := must(im.fs.Read(must(im.fs.Lookup(RootIno, "named")).ok(t).Ino, 0, got)).ok(t)
		if !bytes.Equal(got[:n], data) {
			t.Fatalf("named file reads %d bytes, not what was written", n)
		}
	})
	t.Run("never named", func(t *testing.T) {
		im := newImage(t, 16<<20)
		atRest(t, im.fs)
		before := must(im.fs.StatFS()).ok(t)
		a := unnamedSynced(t, im, data)
		mid := must(im.fs.StatFS()).ok(t)
		if used(mid) != used(before)+1 || mid.Bfree >= before.Bfree {
			t.Fatalf("statfs with the file: %+v, before %+v", mid, before)
		}
		must(0, im.fs.Release(a.Ino)).ok(t)
		im.fs.Forget(a.Ino, 1)
		if _, err := im.fs.GetAttr(a.Ino); err == nil {
			t.Fatal("the unnamed file outlived its last reference")
		}
		must(0, im.fs.Sync()).ok(t)
		atRest(t, im.fs)
		after := must(im.fs.StatFS()).ok(t)
		if used(after) != used(before) || after.Bfree != before.Bfree {
			t.Fatalf("statfs after the last reference: %+v, want %+v", after, before)
		}
	})
	t.Run("crash before naming", func(t *testing.T) {
		im := newImage(t, 16<<20)
		atRest(t, im.fs)
		before := must(im.fs.StatFS()).ok(t)
		a := unnamedSynced(t, im, data)
		crashed := mountImage(t, imageCopy(t, im.dev), Options{Logf: t.Logf})
		if _, err := crashed.fs.GetAttr(a.Ino); err == nil {
			t.Fatal("the mount after a crash kept the unnamed file")
		}
		atRest(t, crashed.fs)
		after := must(crashed.fs.StatFS()).ok(t)
		if used(after) != used(before) || after.Bfree != before.Bfree {
			t.Fatalf("statfs after the crash: %+v, want %+v", after, before)
		}
	})
	t.Run("unlinked files stay unnamed", func(t *testing.T) {
		im := newImage(t, 16<<20)
		a := must(im.fs.Create(RootIno, "f", 0o600, 0, 0)).ok(t)
		must(0, im.fs.Open(a.Ino)).ok(t)
		must(0, im.fs.Unlink(RootIno, "f")).ok(t)
		_, err := im.fs.Link(a.Ino, RootIno, "back")
		wantErr(t, err, ErrNotExist)
		tmp := must(im.fs.CreateTmp(RootIno, 0o600, 0, 0)).ok(t)
		must(im.fs.Link(tmp.Ino, RootIno, "t")).ok(t)
		must(0, im.fs.Unlink(RootIno, "t")).ok(t)
		_, err = im.fs.Link(tmp.Ino, RootIno, "t2")
		wantErr(t, err, ErrNotExist)
		must(0, im.fs.Release(a.Ino)).ok(t)
	})
}

// used is the number of inodes in use (statfs's total moves with free space).
func used(s StatFS) uint64 { return s.Files - s.Ffree }

// unnamedSynced makes an unnamed file, open, holding data, fsynced.
func unnamedSynced(t *testing.T, im *testImage, data []byte) Attr {
	t.Helper()
	a := must(im.fs.CreateTmp(RootIno, 0o600, 0, 0)).ok(t)
	must(0, im.fs.Open(a.Ino)).ok(t)
	must(im.fs.Write(a.Ino, 0, data)).ok(t)
	must(0, im.fs.Fsync(a.Ino, false)).ok(t)
	return a
}
