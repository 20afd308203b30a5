package diskfs

import (
	"strings"
	"testing"
)

func TestParseMountInfo(t *testing.T) {
	cases := []struct {
		line string
		want mountEntry
		ok   bool
	}{
		{"36 25 0:47 / /tmp/a\\040b rw,nosuid shared:1 - fuse.vlfs-disk /img/d.img rw,user_id=0",
			mountEntry{dev: "0:47", point: "/tmp/a b", fstype: "fuse.vlfs-disk", source: "/img/d.img"}, true},
		{"36 25 7:0 / /mnt/x rw - ext4 /dev/loop0 rw", mountEntry{dev: "7:0", point: "/mnt/x", fstype: "ext4", source: "/dev/loop0"}, true},
		{"36 25 7:0 / /mnt/x rw ext4 /dev/loop0", mountEntry{}, false}, // no separator
		{"", mountEntry{}, false},
	}
	for _, c := range cases {
		got, ok := parseMountInfo(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parseMountInfo(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
	if id := (mountEntry{dev: "0:47"}).connID(); id != "47" {
		t.Errorf("connID of 0:47 = %q, want 47", id)
	}
}

func FuzzParseMountInfo(f *testing.F) {
	f.Add("36 25 0:47 / /tmp/a\\040b rw shared:1 - fuse.vlfs-disk /img/d.img rw")
	f.Add("1 2 3 4 5 6 - \\")
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseMountInfo(line)
		if ok && (e.fstype == "" || e.source == "" || !strings.Contains(line, "-")) {
			t.Fatalf("parsed %q into %+v", line, e)
		}
		e.connID()
		parseMounts(strings.NewReader(line))
	})
}
