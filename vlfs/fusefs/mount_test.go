package fusefs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

func TestStatsFile(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	p := filepath.Join(m.Dir, fusefs.DefaultStatsFile)
	if err := os.WriteFile(filepath.Join(m.Dir, "f"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var r fusefs.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("stats file is not a JSON report: %v\n%s", err, b)
	}
	if r.Source != "mount" || r.PID != os.Getpid() || r.Mountpoint != m.Dir || r.Image != m.Image || r.FUSE["create"].Count == 0 {
		t.Fatalf("report: %+v", r)
	}
	ents, err := os.ReadDir(m.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == fusefs.DefaultStatsFile {
			t.Fatal("the stats file is listed by readdir")
		}
	}
	_, err = os.OpenFile(p, os.O_WRONLY, 0)
	wantErrno(t, "open the stats file for writing", err, syscall.EACCES)
	wantErrno(t, "unlink the stats file", os.Remove(p), syscall.EPERM)
	_, err = os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	wantErrno(t, "create over the stats file", err, syscall.EEXIST)
	wantErrno(t, "rename onto the stats file", os.Rename(filepath.Join(m.Dir, "f"), p), syscall.EPERM)
	if err := os.Mkdir(filepath.Join(m.Dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir, "sub", fusefs.DefaultStatsFile), nil, 0o644); err != nil {
		t.Fatalf("the name is reserved only in the root: %v", err)
	}
}

func wantErrno(t *testing.T, what string, err error, want syscall.Errno) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

// TestRoundTrips counts the FUSE requests that reach the server for common
// system calls, with the writeback cache (default) and without.
func TestRoundTrips(t *testing.T) {
	for _, wt := range []bool{false, true} {
		t.Run(fmt.Sprintf("writethrough=%v", wt), func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			f, err := os.Create(filepath.Join(m.Dir, "f"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			block := bytes.Repeat([]byte{7}, 4096)
			count := func(what string, do func() error) map[string]int64 {
				before := m.Server.Counters()
				if err := do(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				d := diff(before, m.Server.Counters())
				t.Logf("%s: %v", what, d)
				return d
			}
			for i := range 3 { // the first write of a file may differ
				w := count(fmt.Sprintf("4 KiB pwrite #%d", i), func() error { _, err := f.WriteAt(block, int64(i)*4096); return err })
				if wt && w["write"] != 1 {
					t.Errorf("writethrough: a 4 KiB write made %d WRITE requests, want 1", w["write"])
				}
				if !wt && w["write"] != 0 {
					t.Errorf("writeback: a cached 4 KiB write made %d WRITE requests, want 0", w["write"])
				}
			}
			s := count("fsync", f.Sync)
			if s["fsync"] != 1 {
				t.Errorf("fsync made %d FSYNC requests, want 1", s["fsync"])
			}
			if !wt && s["write"] < 1 {
				t.Errorf("writeback: fsync wrote no dirty pages")
			}
			count("4 KiB pwrite + fsync", func() error {
				if _, err := f.WriteAt(block, 0); err != nil {
					return err
				}
				return f.Sync()
			})
			count("stat", func() error { _, err := os.Stat(filepath.Join(m.Dir, "f")); return err })
		})
	}
}

// diff returns the request counts that grew.
func diff(before, after map[string]fusefs.OpCount) map[string]int64 {
	d := map[string]int64{}
	for k, a := range after {
		if n := a.Count - before[k].Count; n != 0 {
			d[k] = n
		}
	}
	return d
}

// TestPanicBecomesEIO mounts a nil file system: every call into it panics,
// and every request must still be answered (EIO) with the mount staying up.
func TestPanicBecomesEIO(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var logs []string
	srv, err := fusefs.Mount(dir, (*vlfs.FS)(nil), fusefs.Options{Options: fuseserve.Options{Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(f, a...))
	}}})
	if err != nil {
		t.Fatal(err)
	}
	unmounted := false
	t.Cleanup(func() {
		if !unmounted {
			srv.Unmount()
			srv.Wait()
		}
	})
	for range 3 {
		_, err := os.Stat(filepath.Join(dir, "x"))
		wantErrno(t, "stat through a panicking file system", err, syscall.EIO)
	}
	unmounted = true
	if err := srv.Unmount(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) == 0 || !strings.Contains(logs[0], "panic") {
		t.Fatalf("panics not logged: %q", logs)
	}
}

// TestRemountKeepsData writes, fsyncs, unmounts and mounts the image again.
func TestRemountKeepsData(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	data := bytes.Repeat([]byte("durable "), 10000)
	p := filepath.Join(m.Dir, "d", "f")
	must(t, os.Mkdir(filepath.Join(m.Dir, "d"), 0o700))
	must(t, os.WriteFile(p, data, 0o600))
	must(t, os.Symlink("d/f", filepath.Join(m.Dir, "l")))
	must(t, syscall.Setxattr(p, "user.k", []byte("v"), 0))
	m.Unmount()
	m2 := fstest.MountFS(t, fstest.Options{Image: m.Image})
	got, err := os.ReadFile(filepath.Join(m2.Dir, "l"))
	must(t, err)
	if !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want %d", len(got), len(data))
	}
	buf := make([]byte, 10)
	n, err := syscall.Getxattr(filepath.Join(m2.Dir, "d", "f"), "user.k", buf)
	must(t, err)
	if string(buf[:n]) != "v" {
		t.Fatalf("xattr %q", buf[:n])
	}
	st, err := os.Stat(filepath.Join(m2.Dir, "d"))
	must(t, err)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentFsync runs many writers that fsync at once: the pool must
// keep serving (readers block in fsync) and every fsync must succeed.
func TestConcurrentFsync(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{Options: fuseserve.Options{Readers: 2}, MaxReaders: 6}})
	const writers, rounds = 12, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.Create(filepath.Join(m.Dir, fmt.Sprintf("w%d", w)))
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			for i := range rounds {
				if _, err := f.WriteAt(bytes.Repeat([]byte{byte(w)}, 4096), int64(i)*4096); err != nil {
					errs <- err
					return
				}
				if err := f.Sync(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r := m.Server.Report()
	if r.Readers > 6 || r.FUSE["fsync"].Count < writers*rounds {
		t.Fatalf("readers %d, fsync requests %d", r.Readers, r.FUSE["fsync"].Count)
	}
	t.Logf("fsyncs %d, commits %d, grouped %d, device flushes %d", r.Fsyncs, r.Commits, r.GroupedSyncs, r.Device.Flushes)
}

func TestReadOnlyMount(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	must(t, os.WriteFile(filepath.Join(m.Dir, "f"), []byte("ro"), 0o644))
	m.Unmount()
	ro := fstest.MountFS(t, fstest.Options{Image: m.Image, FS: vlfs.Options{ReadOnly: true}, Fuse: fusefs.Options{ReadOnly: true}})
	got, err := os.ReadFile(filepath.Join(ro.Dir, "f"))
	if err != nil || string(got) != "ro" {
		t.Fatalf("read %q %v", got, err)
	}
	wantErrno(t, "write on a read-only mount", os.WriteFile(filepath.Join(ro.Dir, "g"), nil, 0o644), syscall.EROFS)
}

func TestUnmountBusy(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	f, err := os.Create(filepath.Join(m.Dir, "open"))
	must(t, err)
	err = fusefs.Unmount(m.Dir, false)
	if !errors.Is(err, fusefs.ErrBusy) {
		t.Fatalf("unmount with an open file: %v, want ErrBusy", err)
	}
	must(t, f.Close())
}

// TestNoPollRequests checks that opening files (which Go registers with
// epoll) sends no FUSE_POLL after the one made at mount time: an in-process
// FUSE_POLL can deadlock with the garbage collector (see disablePoll).
func TestNoPollRequests(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	for i := range 5 {
		f, err := os.Create(filepath.Join(m.Dir, fmt.Sprint(i)))
		must(t, err)
		must(t, f.Close())
	}
	if n := m.Server.Counters()["poll"].Count; n != 1 {
		t.Fatalf("%d FUSE_POLL requests, want the 1 made at mount time", n)
	}
}
