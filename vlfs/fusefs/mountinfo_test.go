package fusefs

import "testing"

func TestParseMountInfo(t *testing.T) {
	tests := []struct {
		line string
		want mountEntry
		ok   bool
	}{
		{"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
			mountEntry{"98:0", "/mnt2", "ext3", "/dev/root"}, true},
		{`100 29 0:52 / /tmp/a\040b rw,nosuid,nodev,relatime shared:80 - fuse.vlfs /img/x\040y.img rw,user_id=0,group_id=0`,
			mountEntry{"0:52", "/tmp/a b", "fuse.vlfs", "/img/x y.img"}, true},
		{"100 29 0:52 / /x rw - fuse", mountEntry{}, false},
		{"garbage", mountEntry{}, false},
	}
	for _, tc := range tests {
		got, ok := parseMountInfo(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: %+v %v, want %+v %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
	if id := (mountEntry{dev: "0:52"}).connID(); id != "52" {
		t.Errorf("connID of 0:52 = %q", id)
	}
	if id := (mountEntry{dev: "8:1"}).connID(); id != "8388609" {
		t.Errorf("connID of 8:1 = %q", id)
	}
	if got := unescapeOctal(`a\134b\011c\`); got != "a\\b\tc\\" {
		t.Errorf("unescape: %q", got)
	}
}

func TestMountTypeOfRoot(t *testing.T) {
	if _, ok, err := MountType("/"); err != nil || !ok {
		t.Fatalf("/ is not a mount point? %v %v", ok, err)
	}
	if _, ok, err := MountType(t.TempDir()); err != nil || ok {
		t.Fatalf("a fresh temp dir is a mount point? %v %v", ok, err)
	}
}
