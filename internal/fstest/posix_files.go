package fstest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func testCreateReadWrite(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(10000, 1)
	writeFile(t, p, data)
	wantContent(t, p, data)
	st := lstat(t, p)
	if st.Size != 10000 || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		t.Fatalf("stat: size %d mode %o nlink %d", st.Size, st.Mode, st.Nlink)
	}
}

func testExclusiveCreate(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("x"))
	_, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	wantErrno(t, "O_EXCL on an existing file", err, unix.EEXIST)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
	mustDo(t, "O_CREAT without O_EXCL on an existing file", err)
	f.Close()
	wantContent(t, p, []byte("x"))
}

func testAppend(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("hello "))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	mustDo(t, "open O_APPEND", err)
	// pwrite on an O_APPEND descriptor appends too (Linux).
	_, err = unix.Pwrite(int(f.Fd()), []byte("world"), 0)
	mustDo(t, "pwrite with O_APPEND", err)
	for _, s := range []string{" again", "!"} {
		_, err = f.Write([]byte(s))
		mustDo(t, "append", err)
	}
	mustDo(t, "close", f.Close())
	wantContent(t, p, []byte("hello world again!"))
}

func testOverwriteMiddle(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(20000, 2)
	writeFile(t, p, data)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	patch := bytes.Repeat([]byte{0xAB}, 5000)
	_, err = f.WriteAt(patch, 7000)
	mustDo(t, "pwrite", err)
	mustDo(t, "close", f.Close())
	copy(data[7000:], patch)
	wantContent(t, p, data)
}

// testLargeWriteRead crosses FUSE's 128 KiB request size with odd sizes.
func testLargeWriteRead(t *testing.T, dir string) {
	p := filepath.Join(dir, "big")
	data := pattern(3<<20+777, 3)
	f, err := os.Create(p)
	mustDo(t, "create", err)
	for off, step := 0, 1; off < len(data); step = step*3 + 1 {
		n := min(step%300000+1, len(data)-off)
		_, err := f.Write(data[off : off+n])
		mustDo(t, "write", err)
		off += n
	}
	mustDo(t, "close", f.Close())
	wantContent(t, p, data)
	f, err = os.Open(p)
	mustDo(t, "open", err)
	defer f.Close()
	buf := make([]byte, 200000)
	n, err := f.ReadAt(buf, 1<<20+3)
	mustDo(t, "pread", err)
	if n != len(buf) || !bytes.Equal(buf, data[1<<20+3:1<<20+3+len(buf)]) {
		t.Fatalf("pread of %d bytes at 1 MiB+3 differs", n)
	}
}

func testTruncateDown(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(50000, 4)
	writeFile(t, p, data)
	mustDo(t, "truncate", os.Truncate(p, 12345))
	wantContent(t, p, data[:12345])
	// Data past the new end must not come back when the file grows again.
	mustDo(t, "truncate up", os.Truncate(p, 20000))
	want := append(append([]byte{}, data[:12345]...), make([]byte, 20000-12345)...)
	wantContent(t, p, want)
}

func testTruncateUp(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("abc"))
	mustDo(t, "truncate", os.Truncate(p, 100000))
	want := append([]byte("abc"), make([]byte, 100000-3)...)
	wantContent(t, p, want)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	mustDo(t, "ftruncate", f.Truncate(0))
	st, err := f.Stat()
	mustDo(t, "fstat", err)
	mustDo(t, "close", f.Close())
	if st.Size() != 0 {
		t.Fatalf("size after ftruncate(0) = %d", st.Size())
	}
}

func testOpenTruncate(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, pattern(9000, 5))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	mustDo(t, "open O_TRUNC", err)
	_, err = f.Write([]byte("new"))
	mustDo(t, "write", err)
	mustDo(t, "close", f.Close())
	wantContent(t, p, []byte("new"))
}

func testOpenUnlinked(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("before"))
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	mustDo(t, "unlink", os.Remove(p))
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("lstat after unlink: %v", err)
	}
	_, err = f.WriteAt([]byte(" and after"), 6)
	mustDo(t, "write to unlinked", err)
	mustDo(t, "fsync unlinked", f.Sync())
	buf := make([]byte, 100)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if string(buf[:n]) != "before and after" {
		t.Fatalf("read back %q", buf[:n])
	}
	var st unix.Stat_t
	mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
	if st.Nlink != 0 || st.Size != 16 {
		t.Fatalf("fstat of unlinked file: nlink %d size %d", st.Nlink, st.Size)
	}
}

func testFtruncateOpenUnlinked(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, pattern(100000, 6))
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	mustDo(t, "unlink", os.Remove(p))
	mustDo(t, "ftruncate", f.Truncate(10))
	st, err := f.Stat()
	mustDo(t, "fstat", err)
	if st.Size() != 10 {
		t.Fatalf("size %d after ftruncate of an unlinked file", st.Size())
	}
}

func testMtimeOnWrite(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("x"))
	old := unix.NsecToTimespec(1e9 * 1000000) // 1970-01-12
	mustDo(t, "utimensat", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{old, old}, 0))
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	mustDo(t, "open", err)
	_, err = f.Write([]byte("y"))
	mustDo(t, "write", err)
	mustDo(t, "close", f.Close())
	st := lstat(t, p)
	if st.Mtim.Sec <= old.Sec || st.Ctim.Sec <= old.Sec {
		t.Fatalf("mtime %d ctime %d not updated by a write", st.Mtim.Sec, st.Ctim.Sec)
	}
}
