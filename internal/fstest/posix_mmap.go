package fstest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Mapped memory is touched only inside system calls (a pipe copies into
// and out of it). The vlfs mount is served by this same process: a page
// fault taken by Go code would leave its thread outside any system call
// while it waits for a READ, and a stop-the-world would then wait for that
// thread while the server goroutines that could answer are stopped. A
// thread faulting inside a system call does not hold the world up.

// testMmapShared: a MAP_SHARED mapping shows what write(2) wrote, and a
// store into it, after msync(MS_SYNC), is what read(2) returns, through
// the same and through another descriptor, and after close and reopen.
func testMmapShared(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(10000, 11)
	writeFile(t, p, data)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	mustDo(t, "mmap MAP_SHARED", err)
	defer unix.Munmap(m)
	if got := mapRead(t, m); !bytes.Equal(got, data) {
		t.Fatal("mapping differs from what write(2) wrote")
	}
	patch := pattern(5000, 12) // crosses the page boundaries at 4096 and 8192
	mapWrite(t, m[3000:], patch)
	copy(data[3000:], patch)
	mustDo(t, "msync MS_SYNC", unix.Msync(m, unix.MS_SYNC))
	buf := make([]byte, len(data))
	n, err := f.ReadAt(buf, 0)
	if err != nil || !bytes.Equal(buf[:n], data) {
		t.Fatalf("pread on the mapped descriptor after msync: %d bytes, %v, equal %v", n, err, bytes.Equal(buf[:n], data))
	}
	// Another open reads what msync wrote out, past the page cache.
	mustDo(t, "fadvise DONTNEED", unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	wantContent(t, p, data)
	// The page cache is one: write(2) shows in the live mapping.
	_, err = f.WriteAt([]byte("written"), 4090)
	mustDo(t, "pwrite under the mapping", err)
	copy(data[4090:], "written")
	if got := mapRead(t, m); !bytes.Equal(got, data) {
		t.Fatal("mapping does not show a later write(2)")
	}
	mustDo(t, "munmap", unix.Munmap(m))
	mustDo(t, "close", f.Close())
	dropCache(t, p)
	wantContent(t, p, data)
}

// testMmapPrivate: stores into a MAP_PRIVATE mapping stay out of the file,
// and the part of the last page past the end of the file reads as zeros.
func testMmapPrivate(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(5000, 13)
	writeFile(t, p, data)
	f, err := os.Open(p)
	mustDo(t, "open", err)
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	mustDo(t, "mmap MAP_PRIVATE", err)
	defer unix.Munmap(m)
	want := append(append([]byte{}, data...), make([]byte, 8192-len(data))...)
	if got := mapRead(t, m); !bytes.Equal(got, want) {
		t.Fatal("private mapping differs from the file followed by zeros")
	}
	mapWrite(t, m[100:], []byte("private"))
	copy(want[100:], "private")
	if got := mapRead(t, m); !bytes.Equal(got, want) {
		t.Fatal("private mapping lost its own store")
	}
	mustDo(t, "munmap", unix.Munmap(m))
	dropCache(t, p)
	wantContent(t, p, data)
}

// mapWrite copies data into m through a pipe, so that the kernel, not Go
// code, touches the mapping. data must fit in the pipe (64 KiB).
func mapWrite(t *testing.T, m, data []byte) {
	t.Helper()
	r, w := pipe(t)
	defer unix.Close(r)
	n, err := unix.Write(w, data)
	unix.Close(w)
	if err != nil || n != len(data) {
		t.Fatalf("write to pipe: %d of %d bytes: %v", n, len(data), err)
	}
	for done := 0; done < len(data); done += n {
		n, err = unix.Read(r, m[done:len(data)])
		if err != nil || n == 0 {
			t.Fatalf("read from pipe into the mapping at %d: %d, %v", done, n, err)
		}
	}
}

// mapRead returns a copy of m, taken through a pipe (see mapWrite).
func mapRead(t *testing.T, m []byte) []byte {
	t.Helper()
	r, w := pipe(t)
	defer unix.Close(r)
	n, err := unix.Write(w, m)
	unix.Close(w)
	if err != nil || n != len(m) {
		t.Fatalf("write the mapping to a pipe: %d of %d bytes: %v", n, len(m), err)
	}
	out := make([]byte, len(m))
	for done := 0; done < len(out); done += n {
		n, err = unix.Read(r, out[done:])
		if err != nil || n == 0 {
			t.Fatalf("read from pipe at %d: %d, %v", done, n, err)
		}
	}
	return out
}

func pipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	mustDo(t, "pipe", unix.Pipe2(p[:], unix.O_CLOEXEC))
	return p[0], p[1]
}
