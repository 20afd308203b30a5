package mountinfo

import "testing"

func TestParseLine(t *testing.T) {
	cases := []struct {
		line string
		want Entry
		ok   bool
	}{
		{"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
			Entry{"98:0", "/mnt2", "ext3", "/dev/root"}, true},
		{`100 29 0:52 / /tmp/a\040b rw,nosuid - fuse.vlfs /img/x\040y.img rw`,
			Entry{"0:52", "/tmp/a b", "fuse.vlfs", "/img/x y.img"}, true},
		{"36 25 7:0 / /mnt/x rw - ext4 /dev/loop0 rw", Entry{"7:0", "/mnt/x", "ext4", "/dev/loop0"}, true},
		{"36 25 7:0 / /mnt/x rw ext4 /dev/loop0", Entry{}, false}, // no separator
		{"100 29 0:52 / /x rw - fuse", Entry{}, false},
		{"garbage", Entry{}, false},
		{"", Entry{}, false},
	}
	for _, c := range cases {
		got, ok := ParseLine(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseLine(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestConnIDAndUnescape(t *testing.T) {
	for dev, want := range map[string]string{"0:52": "52", "8:1": "8388609", "x": "", "1:y": ""} {
		if got := (Entry{Dev: dev}).ConnID(); got != want {
			t.Errorf("ConnID(%q) = %q, want %q", dev, got, want)
		}
	}
	if got := Unescape(`a\134b\011c\`); got != "a\\b\tc\\" {
		t.Errorf("Unescape: %q", got)
	}
}

func TestFindRoot(t *testing.T) {
	if _, ok, err := Find("/"); err != nil || !ok {
		t.Fatalf("/ is not a mount point here: %v %v", ok, err)
	}
}
