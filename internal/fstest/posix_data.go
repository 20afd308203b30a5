package fstest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func testSparseFile(t *testing.T, dir string) {
	p := filepath.Join(dir, "sparse")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	_, err = f.WriteAt([]byte("end"), 1<<20)
	mustDo(t, "pwrite past the end", err)
	mustDo(t, "fsync", f.Sync())
	mustDo(t, "close", f.Close())
	st := lstat(t, p)
	if st.Size != 1<<20+3 {
		t.Fatalf("size %d", st.Size)
	}
	if st.Blocks*512 >= 1<<20 {
		t.Fatalf("a 1 MiB hole takes %d blocks of 512 bytes", st.Blocks)
	}
	want := append(make([]byte, 1<<20), "end"...)
	wantContent(t, p, want)
}

func testSparseBeyond4GiB(t *testing.T, dir string) {
	p := filepath.Join(dir, "huge")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	defer f.Close()
	const off = 5<<30 + 12345
	_, err = f.WriteAt([]byte("far away"), off)
	mustDo(t, "pwrite at 5 GiB", err)
	mustDo(t, "fsync", f.Sync())
	st := lstat(t, p)
	if st.Size != off+8 || st.Blocks*512 > 1<<20 {
		t.Fatalf("size %d blocks %d", st.Size, st.Blocks)
	}
	buf := make([]byte, 16)
	n, err := f.ReadAt(buf, off-4)
	if n != 12 || string(buf[:12]) != "\x00\x00\x00\x00far away" {
		t.Fatalf("read near 5 GiB: %d bytes %q (%v)", n, buf[:n], err)
	}
	n, err = f.ReadAt(buf, 4<<30)
	mustDo(t, "read the hole at 4 GiB", err)
	if n != 16 || !bytes.Equal(buf, make([]byte, 16)) {
		t.Fatalf("hole at 4 GiB reads %q", buf[:n])
	}
	mustDo(t, "truncate to 6 GiB", f.Truncate(6<<30))
	n, _ = f.ReadAt(buf, 6<<30-16)
	if n != 16 || !bytes.Equal(buf, make([]byte, 16)) {
		t.Fatalf("end of a 6 GiB sparse file reads %q", buf[:n])
	}
}

func testFsyncFileAndDir(t *testing.T, dir string) {
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	f, err := os.Create(filepath.Join(d, "f"))
	mustDo(t, "create", err)
	_, err = f.Write(pattern(10000, 7))
	mustDo(t, "write", err)
	mustDo(t, "fsync", f.Sync())
	_, err = f.Write([]byte("more"))
	mustDo(t, "write", err)
	mustDo(t, "fdatasync", unix.Fdatasync(int(f.Fd())))
	mustDo(t, "close", f.Close())
	df, err := os.Open(d)
	mustDo(t, "open dir", err)
	mustDo(t, "fsync dir", df.Sync())
	mustDo(t, "fdatasync dir", unix.Fdatasync(int(df.Fd())))
	mustDo(t, "syncfs", unix.Syncfs(int(df.Fd())))
	mustDo(t, "close dir", df.Close())
	if st := lstat(t, filepath.Join(d, "f")); st.Size != 10004 {
		t.Fatalf("size %d", st.Size)
	}
}

func testOSync(t *testing.T, dir string) {
	for _, flag := range []int{unix.O_SYNC, unix.O_DSYNC} {
		p := filepath.Join(dir, "f")
		f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|flag, 0o644)
		mustDo(t, "open", err)
		data := pattern(70000, byte(flag))
		for off := 0; off < len(data); off += 4096 {
			_, err := f.Write(data[off:min(off+4096, len(data))])
			mustDo(t, "synchronous write", err)
		}
		mustDo(t, "close", f.Close())
		wantContent(t, p, data)
	}
}

func testFallocate(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	defer f.Close()
	fd := int(f.Fd())
	mustDo(t, "fallocate", unix.Fallocate(fd, 0, 0, 1<<20))
	if st := lstat(t, p); st.Size != 1<<20 {
		t.Fatalf("size %d after fallocate of 1 MiB", st.Size)
	}
	mustDo(t, "fallocate KEEP_SIZE", unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, 2<<20))
	if st := lstat(t, p); st.Size != 1<<20 {
		t.Fatalf("KEEP_SIZE changed the size to %d", st.Size)
	}
	_, err = f.WriteAt([]byte("x"), 1000)
	mustDo(t, "write into the allocated range", err)
	want := make([]byte, 1<<20)
	want[1000] = 'x'
	wantContent(t, p, want)
	mustDo(t, "fallocate inside", unix.Fallocate(fd, 0, 4096, 4096))
	wantContent(t, p, want)
}

func testStatfs(t *testing.T, dir string) {
	var s unix.Statfs_t
	mustDo(t, "statfs", unix.Statfs(dir, &s))
	if s.Bsize <= 0 || s.Blocks == 0 || s.Bfree > s.Blocks || s.Bavail > s.Bfree {
		t.Fatalf("statfs: bsize %d blocks %d bfree %d bavail %d", s.Bsize, s.Blocks, s.Bfree, s.Bavail)
	}
	if s.Files == 0 || s.Ffree > s.Files || s.Namelen != 255 {
		t.Fatalf("statfs: files %d ffree %d namelen %d", s.Files, s.Ffree, s.Namelen)
	}
}

// testBlocksTrackUsage checks the file's own block count rather than
// statfs, since the oracle's file system is shared with the whole machine.
func testBlocksTrackUsage(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	_, err = f.Write(pattern(8<<20, 8))
	mustDo(t, "write 8 MiB", err)
	mustDo(t, "fsync", f.Sync())
	var st unix.Stat_t
	mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
	mustDo(t, "close", f.Close())
	if st.Blocks < 8<<20/512 || st.Blocks > 9<<20/512 {
		t.Fatalf("8 MiB file takes %d blocks of 512 bytes", st.Blocks)
	}
}

// testBlocksAfterRewrite truncates a file to nothing and writes it again to
// the same size: after the fsync its block count is the full one again,
// not the truncated one (a server that invalidates the kernel's cached
// st_blocks only when the count differs from the one at its last
// invalidation must count the truncate as a change).
func testBlocksAfterRewrite(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	defer f.Close()
	data := pattern(1<<20, 9)
	var st unix.Stat_t
	for round := range 2 {
		_, err = f.WriteAt(data, 0)
		mustDo(t, "write 1 MiB", err)
		mustDo(t, "fsync", f.Sync())
		mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
		if st.Blocks < 1<<20/512 || st.Blocks > 2<<20/512 {
			t.Fatalf("round %d: 1 MiB file takes %d blocks of 512 bytes", round, st.Blocks)
		}
		mustDo(t, "truncate", f.Truncate(0))
		mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
		if st.Blocks != 0 {
			t.Fatalf("round %d: truncated file takes %d blocks", round, st.Blocks)
		}
	}
}

// testBlocksAfterAppends appends 4 KiB and fsyncs, many times in quick
// succession (a log writer), then expects st_blocks to show every block
// within 700 ms. A server may space out the invalidations that refresh the
// kernel's cached count, but must not leave it to the attribute timeout
// (1 s here).
func testBlocksAfterAppends(t *testing.T, dir string) {
	f, err := os.Create(filepath.Join(dir, "log"))
	mustDo(t, "create", err)
	defer f.Close()
	const n = 40
	rec := pattern(4096, 10)
	for i := range n {
		_, err := f.Write(rec)
		mustDo(t, "append", err)
		mustDo(t, fmt.Sprintf("fsync %d", i), f.Sync())
	}
	var st unix.Stat_t
	deadline := time.Now().Add(700 * time.Millisecond)
	for {
		mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
		if st.Blocks >= n*4096/512 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d KiB appended and fsynced: st_blocks still %d 512-byte blocks after 700 ms", n*4, st.Blocks)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
