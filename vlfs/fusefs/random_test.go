package fusefs_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

var fileOpsSeed = flag.Int64("fusefs.seed", 0, "replay TestRandomFileOpsAgainstHost with this seed (0 = random)")

// TestRandomFileOpsAgainstHost applies the same random file operations,
// through real system calls, to files on a vlfs mount and to files in a
// directory of the host (the oracle), and compares what reads return and
// the files' sizes and contents along the way: pwrite, pread, ftruncate,
// every fallocate mode vlfs takes, copy_file_range within and across
// files, fsync, and closing and reopening (so the kernel's page cache is
// dropped and refilled). It runs with and without the writeback cache,
// where the kernel, not vlfs, holds written data until it writes it back:
// punches and copies must see it. The seed is printed; -fusefs.seed
// replays it.
func TestRandomFileOpsAgainstHost(t *testing.T) {
	seed := testseed.Pick(t, *fileOpsSeed, "fusefs.seed")
	steps := 2000
	if testing.Short() {
		steps = 400
	}
	for _, wt := range []bool{false, true} {
		t.Run(map[bool]string{false: "writeback", true: "writethrough"}[wt], func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			r := &fileOps{t: t, rng: rand.New(rand.NewSource(seed)), dirs: [2]string{t.TempDir(), m.Dir}, ok: map[string]int{}}
			r.open()
			defer r.close()
			for i := 0; i < steps; i++ {
				r.step(i)
				if i%50 == 49 {
					r.compareAll(fmt.Sprintf("after step %d", i))
				}
			}
			r.compareAll("at the end")
			t.Logf("operations that succeeded: %v", r.ok)
			for _, k := range []string{"pwrite", "pread", "ftruncate", "fallocate", "copy_file_range", "fsync", "seek"} {
				if r.ok[k] == 0 {
					t.Errorf("no %s succeeded: the run tested nothing of it", k)
				}
			}
		})
	}
}

// fileOps drives the files f0..f2 in the oracle directory (dirs[0]) and on
// the mount (dirs[1]) alike.
type fileOps struct {
	t    *testing.T
	rng  *rand.Rand
	dirs [2]string
	fds  [2][3]*os.File
	log  []string       // the last operations, for a failure message
	ok   map[string]int // operations that succeeded on both, by kind
}

const nFiles = 3

func (r *fileOps) open() {
	for d := range r.dirs {
		for i := 0; i < nFiles; i++ {
			f, err := os.OpenFile(filepath.Join(r.dirs[d], fmt.Sprintf("f%d", i)), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				r.t.Fatal(err)
			}
			r.fds[d][i] = f
		}
	}
}

func (r *fileOps) close() {
	for d := range r.fds {
		for _, f := range r.fds[d] {
			f.Close()
		}
	}
}

func (r *fileOps) fatalf(format string, args ...any) {
	r.t.Helper()
	start := max(0, len(r.log)-12)
	r.t.Fatalf("%s\nlast operations:\n  %s", fmt.Sprintf(format, args...), bytes.Join(toBytes(r.log[start:]), []byte("\n  ")))
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// both runs op on the oracle and on the mount and fails unless both give
// the same result and the same error (nil or not).
func (r *fileOps) both(what string, op func(f [nFiles]*os.File) (int, error)) {
	r.t.Helper()
	r.log = append(r.log, what)
	n0, err0 := op(r.fds[0])
	n1, err1 := op(r.fds[1])
	if n0 != n1 || (err0 == nil) != (err1 == nil) {
		r.fatalf("%s: host %d, %v; vlfs %d, %v", what, n0, err0, n1, err1)
	}
	if err0 == nil {
		r.ok[kindOf(what)]++
	}
}

// kindOf is the operation's name in a log line "STEP: NAME ...".
func kindOf(what string) string {
	f := bytes.Fields([]byte(what))
	if len(f) < 2 {
		return what
	}
	return string(f[1])
}

func (r *fileOps) offset() int64 {
	if r.rng.Intn(8) == 0 {
		return r.rng.Int63n(2 << 20)
	}
	return r.rng.Int63n(256 << 10)
}

func (r *fileOps) length() int {
	sizes := []int{1, 100, 4096, 5000, 20000, 70000, 300000}
	return sizes[r.rng.Intn(len(sizes))]
}

func (r *fileOps) step(i int) {
	a, b := r.rng.Intn(nFiles), r.rng.Intn(nFiles)
	off, n := r.offset(), r.length()
	switch k := r.rng.Intn(22); {
	case k < 6:
		data := make([]byte, n)
		r.rng.Read(data)
		r.both(fmt.Sprintf("%d: pwrite f%d [%d,+%d)", i, a, off, n), func(f [nFiles]*os.File) (int, error) {
			return f[a].WriteAt(data, off)
		})
	case k < 9:
		r.read(fmt.Sprintf("%d: pread f%d [%d,+%d)", i, a, off, n), a, off, n)
	case k < 10:
		size := r.rng.Int63n(300 << 10)
		r.both(fmt.Sprintf("%d: ftruncate f%d %d", i, a, size), func(f [nFiles]*os.File) (int, error) {
			return 0, f[a].Truncate(size)
		})
	case k < 13:
		modes := []uint32{0, unix.FALLOC_FL_KEEP_SIZE, unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE,
			unix.FALLOC_FL_ZERO_RANGE, unix.FALLOC_FL_ZERO_RANGE | unix.FALLOC_FL_KEEP_SIZE}
		mode := modes[r.rng.Intn(len(modes))]
		r.both(fmt.Sprintf("%d: fallocate f%d mode %#x [%d,+%d)", i, a, mode, off, n), func(f [nFiles]*os.File) (int, error) {
			return 0, unix.Fallocate(int(f[a].Fd()), mode, off, int64(n))
		})
	case k < 16:
		dstOff := r.offset()
		if r.rng.Intn(2) == 0 { // the same place in the block: vlfs keeps the source's holes
			dstOff = dstOff&^4095 + off&4095
		}
		if a == b && r.overlaps(a, off, dstOff, int64(n)) {
			return // EINVAL on both; not worth a case of its own
		}
		r.both(fmt.Sprintf("%d: copy_file_range f%d [%d,+%d) to f%d %d", i, a, off, n, b, dstOff), func(f [nFiles]*os.File) (int, error) {
			return copyAll(f[a], off, f[b], dstOff, n)
		})
	case k < 18:
		r.both(fmt.Sprintf("%d: fsync f%d", i, a), func(f [nFiles]*os.File) (int, error) {
			return 0, f[a].Sync()
		})
	case k < 20:
		r.log = append(r.log, fmt.Sprintf("%d: close and reopen f%d", i, a))
		for d := range r.dirs {
			name := r.fds[d][a].Name()
			r.fds[d][a].Close()
			f, err := os.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				r.fatalf("reopen %s: %v", name, err)
			}
			r.fds[d][a] = f
		}

	default:
		r.seek(fmt.Sprintf("%d: seek f%d %d", i, a, off), a, off, r.rng.Intn(2) == 0)
	}
}

// seek asks the mount for the next data or hole from off in file a. What
// a host file system calls a hole may differ (ext4 calls a zeroed range
// one), so the answer is checked for soundness against the host's
// content: whatever vlfs skips as a hole must read as zeros there, and
// the end of the file must be where the host has it.
func (r *fileOps) seek(what string, a int, off int64, data bool) {
	r.t.Helper()
	r.log = append(r.log, what)
	whence := map[bool]int{true: unix.SEEK_DATA, false: unix.SEEK_HOLE}[data]
	got, err := unix.Seek(int(r.fds[1][a].Fd()), off, whence)
	st, serr := r.fds[0][a].Stat()
	if serr != nil {
		r.fatalf("%s: stat: %v", what, serr)
	}
	size := st.Size()
	var zeros [2]int64 // the range that must read as zeros on the host
	switch {
	case off >= size:
		if !errors.Is(err, unix.ENXIO) {
			r.fatalf("%s (data %v): %d, %v at or past the end (%d); want ENXIO", what, data, got, err, size)
		}
		r.ok["seek"]++
		return
	case data && errors.Is(err, unix.ENXIO):
		zeros = [2]int64{off, size}
	case err != nil || got < off || got > size || (data && got == size):
		r.fatalf("%s (data %v): %d, %v in a file of %d bytes", what, data, got, err, size)
	case data:
		zeros = [2]int64{off, got}
	default: // a hole is at least the rest of its block
		zeros = [2]int64{got, min(size, (got|4095)+1)}
	}
	buf := make([]byte, zeros[1]-zeros[0])
	if _, err := r.fds[0][a].ReadAt(buf, zeros[0]); err != nil && !errors.Is(err, io.EOF) {
		r.fatalf("%s: host pread: %v", what, err)
	}
	if i := firstNonZero(buf); i >= 0 {
		r.fatalf("%s (data %v): vlfs answered %d, %v, but the host has data at %d", what, data, got, err, zeros[0]+int64(i))
	}
	r.ok["seek"]++
}

// overlaps reports whether a copy within file a would overlap once the
// source range is cut at the end of the file (the kernel then refuses it).
func (r *fileOps) overlaps(a int, srcOff, dstOff, n int64) bool {
	st, err := r.fds[0][a].Stat()
	if err != nil {
		r.fatalf("stat: %v", err)
	}
	if srcOff >= st.Size() {
		return false
	}
	n = min(n, st.Size()-srcOff)
	return srcOff < dstOff+n && dstOff < srcOff+n
}

// copyAll calls copy_file_range until it has copied n bytes or reaches
// the end of the source (file systems may copy less per call).
func copyAll(src *os.File, srcOff int64, dst *os.File, dstOff int64, n int) (int, error) {
	done := 0
	for done < n {
		c, err := unix.CopyFileRange(int(src.Fd()), &srcOff, int(dst.Fd()), &dstOff, n-done, 0)
		if err != nil {
			return done, err
		}
		if c == 0 {
			break
		}
		done += c
	}
	return done, nil
}

func (r *fileOps) read(what string, a int, off int64, n int) {
	r.t.Helper()
	r.log = append(r.log, what)
	var bufs [2][]byte
	var ns [2]int
	for d := range r.dirs {
		bufs[d] = make([]byte, n)
		got, err := r.fds[d][a].ReadAt(bufs[d], off)
		if err != nil && got == n {
			err = nil
		}
		if err != nil && err.Error() != "EOF" {
			r.fatalf("%s: dir %d: %v", what, d, err)
		}
		ns[d] = got
	}
	if ns[0] != ns[1] || !bytes.Equal(bufs[0][:ns[0]], bufs[1][:ns[1]]) {
		r.fatalf("%s: host read %d bytes, vlfs %d; first difference at %d", what, ns[0], ns[1], firstDifference(bufs[0][:ns[0]], bufs[1][:ns[1]]))
	}
	r.ok["pread"]++
}

func (r *fileOps) compareAll(when string) {
	r.t.Helper()
	for i := 0; i < nFiles; i++ {
		var data [2][]byte
		for d := range r.dirs {
			b, err := os.ReadFile(r.fds[d][i].Name())
			if err != nil {
				r.fatalf("%s: read f%d: %v", when, i, err)
			}
			data[d] = b
		}
		if !bytes.Equal(data[0], data[1]) {
			r.fatalf("%s: f%d differs: host %d bytes, vlfs %d, first difference at %d", when, i, len(data[0]), len(data[1]), firstDifference(data[0], data[1]))
		}
	}
}

func firstNonZero(b []byte) int {
	for i, c := range b {
		if c != 0 {
			return i
		}
	}
	return -1
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
