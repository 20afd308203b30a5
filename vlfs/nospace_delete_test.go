package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// Issue 30: on a full disk, deleting many files between two commits made
// the next commit need a new copy of every inode and directory block the
// deletes touched, more blocks than were free: it failed, freed nothing,
// and every acknowledged delete vanished at unmount. lockChange now
// commits before the pending commit outgrows the free blocks, splitting
// the big commit at operation boundaries into commits that fit.

// fullDiskShape fills a directory of a fresh image to ErrNoSpace, then
// removes about a fifth of what it made with no commit in between.
type fullDiskShape struct {
	name string
	size func(i int) int // bytes of file i
	// extra runs after file i's data was written (hard links, xattrs);
	// it may return ErrNoSpace, which ends the fill.
	extra func(fs *FS, dir Ino, i int, a Attr) error
	// remove removes file i's names (and whatever extra made); it is
	// called for every fifth file, or for every file of a removed
	// subdirectory.
	remove func(t *testing.T, fs *FS, dir Ino, i int, ino Ino)
	// subdirs puts the files in directories of 64 and removes whole
	// directories (rm -rf) instead of every fifth file.
	subdirs bool
}

func unlinkFile(t *testing.T, fs *FS, dir Ino, i int, ino Ino) {
	t.Helper()
	if err := fs.Unlink(dir, fmt.Sprintf("f%d", i)); err != nil {
		t.Fatalf("unlink f%d on a full disk: %v", i, err)
	}
	fs.Forget(ino, 1)
}

var fullDiskShapes = []fullDiskShape{
	{name: "4KiB files", size: func(int) int { return 4096 }, remove: unlinkFile},
	{name: "1MiB files", size: func(int) int { return 1 << 20 }, remove: unlinkFile},
	{name: "mixed sizes", size: func(i int) int { return []int{1, 4096, 9000, 70000, 300 << 10, 2 << 20, 12345}[i%7] + i%13 }, remove: unlinkFile},
	{
		// still looked up when unmounted: Close frees them, in commits that fit
		name: "unlinked while in use", size: func(int) int { return 4096 },
		remove: func(t *testing.T, fs *FS, dir Ino, i int, _ Ino) {
			t.Helper()
			if err := fs.Unlink(dir, fmt.Sprintf("f%d", i)); err != nil {
				t.Fatalf("unlink f%d on a full disk: %v", i, err)
			}
		},
	},
	{
		name: "hard links", size: func(int) int { return 4096 },
		extra: func(fs *FS, dir Ino, i int, a Attr) error {
			_, err := fs.Link(a.Ino, dir, fmt.Sprintf("l%d", i))
			return err
		},
		remove: func(t *testing.T, fs *FS, dir Ino, i int, ino Ino) {
			t.Helper()
			if err := fs.Unlink(dir, fmt.Sprintf("l%d", i)); err != nil {
				t.Fatalf("unlink l%d: %v", i, err)
			}
			fs.Forget(ino, 1) // Link looked it up once more
			unlinkFile(t, fs, dir, i, ino)
		},
	},
	{
		name: "xattrs", size: func(int) int { return 4096 },
		extra: func(fs *FS, _ Ino, i int, a Attr) error {
			return fs.Setxattr(a.Ino, "user.note", bytes.Repeat([]byte{byte(i)}, 3000), 0)
		},
		remove: func(t *testing.T, fs *FS, dir Ino, i int, ino Ino) {
			t.Helper()
			if err := fs.Removexattr(ino, "user.note"); err != nil {
				t.Fatalf("removexattr f%d: %v", i, err)
			}
			unlinkFile(t, fs, dir, i, ino)
		},
	},
	{name: "directories removed", size: func(int) int { return 4096 }, remove: unlinkFile, subdirs: true},
	{
		name: "truncated to zero", size: func(int) int { return 16 << 10 },
		remove: func(t *testing.T, fs *FS, _ Ino, i int, ino Ino) {
			t.Helper()
			if _, err := fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: 0}); err != nil {
				t.Fatalf("truncate f%d on a full disk: %v", i, err)
			}
		},
	},
}

// fullFile is one file the fill made.
type fullFile struct {
	dir  Ino
	sub  int // subdirectory number, -1 if none
	ino  Ino
	size int
}

func fileBytes(i, n int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("<%d>", i)), n/3+1)[:n]
}

// fill makes files until ErrNoSpace and commits them.
func (sh fullDiskShape) fill(t *testing.T, fs *FS, top Ino) []fullFile {
	t.Helper()
	var files []fullFile
	dir, sub := top, -1
	for i := 0; ; i++ {
		if sh.subdirs && i%64 == 0 {
			a, err := fs.Mkdir(top, fmt.Sprintf("d%d", i/64), 0o755, 0, 0)
			if errors.Is(err, ErrNoSpace) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			dir, sub = a.Ino, i/64
		}
		a, err := fs.Create(dir, fmt.Sprintf("f%d", i), 0o644, 0, 0)
		if errors.Is(err, ErrNoSpace) {
			break
		}
		if err != nil {
			t.Fatalf("create f%d: %v", i, err)
		}
		n := sh.size(i)
		files = append(files, fullFile{dir: dir, sub: sub, ino: a.Ino})
		if _, err := fs.Write(a.Ino, 0, fileBytes(i, n)); errors.Is(err, ErrNoSpace) {
			break // this file stays empty
		} else if err != nil {
			t.Fatalf("write f%d: %v", i, err)
		}
		files[i].size = n
		if sh.extra != nil {
			if err := sh.extra(fs, dir, i, a); errors.Is(err, ErrNoSpace) {
				break
			} else if err != nil {
				t.Fatalf("f%d: %v", i, err)
			}
		}
	}
	if err := fs.Sync(); err != nil {
		t.Fatalf("sync of the full disk: %v", err)
	}
	return files
}

// removed says whether the shape removes file i.
func (sh fullDiskShape) removed(f fullFile, i int) bool {
	if sh.subdirs {
		return f.sub%5 == 0
	}
	return i%5 == 0
}

func TestFullDiskDeleteManyFrees(t *testing.T) {
	for _, sh := range fullDiskShapes {
		t.Run(sh.name, func(t *testing.T) {
			im := newImage(t, 32<<20)
			fs := im.fs
			top := must(fs.Mkdir(RootIno, "fill", 0o755, 0, 0)).ok(t).Ino
			files := sh.fill(t, fs, top)
			before := must(fs.StatFS()).ok(t)
			freed := 0
			for i, f := range files {
				if sh.removed(f, i) {
					sh.remove(t, fs, f.dir, i, f.ino)
					freed += (f.size + 4095) / 4096
				}
			}
			if sh.subdirs {
				for d := 0; d <= files[len(files)-1].sub; d += 5 {
					if err := fs.Rmdir(top, fmt.Sprintf("d%d", d)); err != nil {
						t.Fatalf("rmdir d%d: %v", d, err)
					}
				}
			}
			if err := fs.Sync(); err != nil {
				t.Fatalf("sync after deleting on a full disk: %v", err)
			}
			after := must(fs.StatFS()).ok(t)
			st := fs.Stats()
			t.Logf("%d files, %d blocks freed; free blocks %d -> %d of %d; %d commits made room, %d failed",
				len(files), freed, before.Bfree, after.Bfree, after.Blocks, st.RoomCommits, st.FailedCommits)
			if sh.name == "unlinked while in use" {
				after.Bfree += uint64(freed) // freed at Close
			}
			if after.Bfree < before.Bfree+uint64(freed)*9/10 {
				t.Errorf("free blocks %d -> %d after freeing %d", before.Bfree, after.Bfree, freed)
			}
			if st.FailedCommits != 0 || st.CommitError != "" {
				t.Errorf("%d commits failed: %s", st.FailedCommits, st.CommitError)
			}
			im.check()
			im.remount()
			sh.verify(t, im.fs, top, files)
			// the freed space takes new files
			for i := 0; i < freed/2/((sh.size(0)+4095)/4096+1); i++ {
				a, err := im.fs.Create(RootIno, fmt.Sprintf("new%d", i), 0o644, 0, 0)
				if err == nil {
					_, err = im.fs.Write(a.Ino, 0, fileBytes(i, sh.size(0)))
				}
				if err != nil {
					t.Fatalf("new file %d in the freed space: %v", i, err)
				}
			}
			must(0, im.fs.Sync()).ok(t)
			im.check()
		})
	}
}

// verify checks after remount that what was removed is gone and the rest
// is intact.
func (sh fullDiskShape) verify(t *testing.T, fs *FS, top Ino, files []fullFile) {
	t.Helper()
	for i, f := range files {
		name := fmt.Sprintf("f%d", i)
		if sh.subdirs {
			_, err := fs.Lookup(top, fmt.Sprintf("d%d", f.sub))
			if gone := errors.Is(err, ErrNotExist); gone != sh.removed(f, i) {
				t.Fatalf("directory d%d after remount: %v", f.sub, err)
			}
			if sh.removed(f, i) {
				continue
			}
		}
		a, err := fs.Lookup(f.dir, name)
		if sh.removed(f, i) && sh.name != "truncated to zero" {
			if !errors.Is(err, ErrNotExist) {
				t.Fatalf("%s after remount: %v, want deleted", name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s after remount: %v", name, err)
		}
		want := fileBytes(i, f.size)
		if sh.removed(f, i) {
			want = nil
		}
		buf := make([]byte, len(want)+1)
		n := must(fs.Read(a.Ino, 0, buf)).ok(t)
		if !bytes.Equal(buf[:n], want) {
			t.Fatalf("%s after remount: %d bytes, want %d (or contents differ)", name, n, len(want))
		}
	}
}
