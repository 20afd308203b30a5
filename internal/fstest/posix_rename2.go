package fstest

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testRenameNoReplace: renameat2 RENAME_NOREPLACE moves onto a free name
// and fails with EEXIST, changing nothing, onto a taken one.
func testRenameNoReplace(t *testing.T, dir string) {
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeFile(t, a, []byte("a"))
	writeFile(t, b, []byte("b"))
	wantErrno(t, "RENAME_NOREPLACE onto an existing name",
		unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_NOREPLACE), unix.EEXIST)
	wantContent(t, a, []byte("a"))
	wantContent(t, b, []byte("b"))
	mustDo(t, "RENAME_NOREPLACE onto a new name",
		unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, c, unix.RENAME_NOREPLACE))
	wantContent(t, c, []byte("a"))
	if got := names(t, dir); !equalStrings(got, []string{"b", "c"}) {
		t.Fatalf("directory holds %v, want [b c]", got)
	}
}

// testRenameExchange: RENAME_EXCHANGE swaps two names atomically, across
// directories and between a file and a directory (fixing the directories'
// link counts), and fails with ENOENT when either name is missing.
func testRenameExchange(t *testing.T, dir string) {
	f, d := filepath.Join(dir, "f"), filepath.Join(dir, "sub")
	writeFile(t, f, []byte("file"))
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	inner := filepath.Join(d, "inner")
	writeFile(t, inner, []byte("inner"))
	fIno, dIno := lstat(t, f).Ino, lstat(t, d).Ino

	mustDo(t, "exchange file and dir",
		unix.Renameat2(unix.AT_FDCWD, f, unix.AT_FDCWD, d, unix.RENAME_EXCHANGE))
	if lstat(t, f).Ino != dIno || lstat(t, d).Ino != fIno {
		t.Fatal("RENAME_EXCHANGE did not swap the inodes")
	}
	wantContent(t, d, []byte("file"))
	wantContent(t, filepath.Join(f, "inner"), []byte("inner"))

	// Across directories: "sub" (now the file) swaps with f/inner.
	mustDo(t, "exchange across directories",
		unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, filepath.Join(f, "inner"), unix.RENAME_EXCHANGE))
	wantContent(t, d, []byte("inner"))
	wantContent(t, filepath.Join(f, "inner"), []byte("file"))
	if n := lstat(t, dir).Nlink; n != 3 { // ".", its entry, and f's ".."
		t.Fatalf("parent nlink %d after the exchanges, want 3", n)
	}
	wantErrno(t, "RENAME_EXCHANGE with a missing target",
		unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, filepath.Join(dir, "none"), unix.RENAME_EXCHANGE), unix.ENOENT)
}
