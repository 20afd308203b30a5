package fstest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testCtimeOnChange: every change to an inode, including to its names
// only, moves its ctime on, and leaves its mtime.
func testCtimeOnChange(t *testing.T, dir string) {
	p, q, r := filepath.Join(dir, "f"), filepath.Join(dir, "g"), filepath.Join(dir, "h")
	writeFile(t, p, []byte("x"))
	steps := []struct {
		what, path string
		op         func() error
	}{
		{"chmod", p, func() error { return unix.Chmod(p, 0o600) }},
		{"link", p, func() error { return unix.Link(p, q) }},
		{"unlink of another link", p, func() error { return unix.Unlink(q) }},
		{"rename", r, func() error { return unix.Rename(p, r) }},
		{"setxattr", r, func() error { return unix.Setxattr(r, "user.x", []byte("1"), 0) }},
		{"removexattr", r, func() error { return unix.Removexattr(r, "user.x") }},
	}
	before := lstat(t, p)
	for _, s := range steps {
		tick()
		mustDo(t, s.what, s.op())
		after := lstat(t, s.path)
		if !later(after.Ctim, before.Ctim) {
			t.Fatalf("%s: ctime %v did not move on from %v", s.what, after.Ctim, before.Ctim)
		}
		if after.Mtim != before.Mtim {
			t.Fatalf("%s changed mtime from %v to %v", s.what, before.Mtim, after.Mtim)
		}
		before = after
	}
}

// testDirTimesOnEntryChange: creating, removing or renaming an entry moves
// the directory's mtime and ctime on; a rename across directories moves
// both directories' times.
func testDirTimesOnEntryChange(t *testing.T, dir string) {
	d, e := filepath.Join(dir, "d"), filepath.Join(dir, "e")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(e, 0o755))
	in := func(n string) string { return filepath.Join(d, n) }
	steps := []struct {
		what string
		op   func() error
	}{
		{"create", func() error { return os.WriteFile(in("f"), nil, 0o644) }},
		{"mkdir", func() error { return unix.Mkdir(in("sub"), 0o755) }},
		{"symlink", func() error { return unix.Symlink("f", in("l")) }},
		{"link", func() error { return unix.Link(in("f"), in("g")) }},
		{"rename inside", func() error { return unix.Rename(in("g"), in("h")) }},
		{"unlink", func() error { return unix.Unlink(in("h")) }},
		{"rmdir", func() error { return unix.Rmdir(in("sub")) }},
		{"rename out", func() error { return unix.Rename(in("f"), filepath.Join(e, "f")) }},
	}
	bd, be := lstat(t, d), lstat(t, e)
	for _, s := range steps {
		tick()
		mustDo(t, s.what, s.op())
		ad, ae := lstat(t, d), lstat(t, e)
		if !later(ad.Mtim, bd.Mtim) || !later(ad.Ctim, bd.Ctim) {
			t.Fatalf("%s: directory mtime %v ctime %v, before %v %v", s.what, ad.Mtim, ad.Ctim, bd.Mtim, bd.Ctim)
		}
		if moved := s.what == "rename out"; moved != later(ae.Mtim, be.Mtim) || moved != later(ae.Ctim, be.Ctim) {
			t.Fatalf("%s: other directory's mtime %v ctime %v, before %v %v", s.what, ae.Mtim, ae.Ctim, be.Mtim, be.Ctim)
		}
		bd, be = ad, ae
	}
}

// testUtimensCtime: utimensat with times given, UTIME_NOW or UTIME_OMIT,
// by path and by descriptor (futimens). Setting either time moves ctime to
// now; omitting both changes nothing.
func testUtimensCtime(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("x"))
	at := unix.Timespec{Sec: 1000000000, Nsec: 1}
	mt := unix.Timespec{Sec: 1100000000, Nsec: 2}
	omit, now := unix.Timespec{Nsec: unix.UTIME_OMIT}, unix.Timespec{Nsec: unix.UTIME_NOW}
	start := lstat(t, p)
	tick()
	mustDo(t, "utimensat", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{at, mt}, 0))
	st := lstat(t, p)
	if st.Atim != at || st.Mtim != mt || !later(st.Ctim, start.Ctim) {
		t.Fatalf("utimensat: atime %v mtime %v ctime %v (was %v)", st.Atim, st.Mtim, st.Ctim, start.Ctim)
	}
	tick()
	mustDo(t, "utimensat OMIT OMIT", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{omit, omit}, 0))
	if st2 := lstat(t, p); st2.Atim != at || st2.Mtim != mt || st2.Ctim != st.Ctim {
		t.Fatalf("UTIME_OMIT for both changed times: %v %v %v", st2.Atim, st2.Mtim, st2.Ctim)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	mustDo(t, "futimens NOW OMIT", futimens(int(f.Fd()), [2]unix.Timespec{now, omit}))
	st2 := lstat(t, p)
	if !later(st2.Atim, st.Ctim) || st2.Mtim != mt || !later(st2.Ctim, st.Ctim) {
		t.Fatalf("futimens NOW OMIT: atime %v mtime %v ctime %v (ctime was %v)", st2.Atim, st2.Mtim, st2.Ctim, st.Ctim)
	}
	tick()
	mustDo(t, "futimens OMIT NOW", futimens(int(f.Fd()), [2]unix.Timespec{omit, now}))
	st3 := lstat(t, p)
	if st3.Atim != st2.Atim || !later(st3.Mtim, st2.Ctim) || !later(st3.Ctim, st2.Ctim) {
		t.Fatalf("futimens OMIT NOW: atime %v mtime %v ctime %v (before %v %v)", st3.Atim, st3.Mtim, st3.Ctim, st2.Atim, st2.Ctim)
	}
}

func futimens(fd int, ts [2]unix.Timespec) error {
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// tick sleeps past two steps of the coarse clock the kernel stamps inode
// times with, so that a change made after it is stamped later than one
// made before (whichever of the kernel or a FUSE server stamped that).
func tick() {
	var res unix.Timespec
	if unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &res) != nil || res.Nano() > int64(50*time.Millisecond) {
		res = unix.NsecToTimespec(int64(10 * time.Millisecond))
	}
	time.Sleep(2 * time.Duration(res.Nano()))
}

func later(a, b unix.Timespec) bool { return a.Sec > b.Sec || a.Sec == b.Sec && a.Nsec > b.Nsec }
