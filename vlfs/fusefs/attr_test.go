package fusefs

import (
	"os"
	"syscall"
	"testing"
	"time"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

func TestModeConversions(t *testing.T) {
	types := []uint32{syscall.S_IFREG, syscall.S_IFDIR, syscall.S_IFLNK, syscall.S_IFIFO, syscall.S_IFCHR, syscall.S_IFBLK, syscall.S_IFSOCK}
	for _, typ := range types {
		for _, perm := range []uint32{0, 0o644, 0o4755, 0o2750, 0o1777, 0o7777} {
			m := goMode(typ | perm)
			if unixType(m) != typ || unixPerm(m) != perm {
				t.Errorf("%o|%o -> %v -> %o|%o", typ, perm, m, unixType(m), unixPerm(m))
			}
		}
		if got := direntType(typ | 0o644); uint32(got) != typ>>12 {
			t.Errorf("dirent type of %o = %v", typ, got)
		}
	}
	if unixType(os.FileMode(0o644)) != syscall.S_IFREG {
		t.Error("a mode without type bits is not a regular file")
	}
}

func TestSetAttrOf(t *testing.T) {
	at := time.Unix(100, 5)
	tests := []struct {
		valid fuse.SetattrValid
		want  vlfs.SetAttrMask
	}{
		{fuse.SetattrMode, vlfs.SetMode},
		{fuse.SetattrUid | fuse.SetattrGid, vlfs.SetUid | vlfs.SetGid},
		{fuse.SetattrSize | fuse.SetattrHandle, vlfs.SetSize},
		{fuse.SetattrAtime, vlfs.SetAtime},
		{fuse.SetattrAtime | fuse.SetattrAtimeNow, vlfs.SetAtimeNow},
		{fuse.SetattrMtime | fuse.SetattrMtimeNow | fuse.SetattrCTime, vlfs.SetMtimeNow | vlfs.SetCtime},
		{fuse.SetattrLockOwner, 0},
	}
	for _, tc := range tests {
		r := &fuse.SetattrRequest{Valid: tc.valid, Mode: os.ModeSetuid | 0o750, Atime: at, Size: 9}
		s := setAttrOf(r)
		if s.Mask != tc.want {
			t.Errorf("valid %v: mask %b, want %b", tc.valid, s.Mask, tc.want)
		}
		if s.Mode != 0o4750 || !s.Atime.Equal(at) || s.Size != 9 {
			t.Errorf("valid %v: values %+v", tc.valid, s)
		}
	}
}
