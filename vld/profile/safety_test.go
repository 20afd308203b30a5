package profile

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestIdentify(t *testing.T) {
	at := func(off int, magic string) []byte {
		b := make([]byte, SignatureBytes)
		copy(b[off:], magic)
		return b
	}
	ext := at(1080, "\x53\xef")
	binary.LittleEndian.PutUint32(ext[1024:], 65536) // inodes
	binary.LittleEndian.PutUint32(ext[1024+24:], 2)  // 4 KiB blocks
	extNoise := at(1080, "\x53\xef")
	binary.LittleEndian.PutUint32(extNoise[1024+24:], 99)
	mbr := at(510, "\x55\xaa")
	cases := []struct {
		name string
		head []byte
		want string
	}{
		{"zeros", make([]byte, SignatureBytes), ""},
		{"short", []byte("VLD"), ""},
		{"vld volume", at(0, "VLDSUPER"), "vlfs"},
		{"ext4", ext, "ext2/3/4"},
		{"ext magic in noise", extNoise, ""},
		{"xfs", at(0, "XFSB"), "XFS"},
		{"btrfs", at(65600, "_BHRfS_M"), "btrfs"},
		{"swap", at(4086, "SWAPSPACE2"), "swap"},
		{"luks", at(0, "LUKS\xba\xbe"), "LUKS"},
		{"gpt", at(512, "EFI PART"), "GPT"},
		{"mbr", mbr, "MBR"},
		{"iso", at(32769, "CD001"), "ISO"},
	}
	for _, c := range cases {
		got := Identify(c.head)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: Identify = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseMountInfo(t *testing.T) {
	in := `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:21 / /proc rw - proc proc rw
bad line
24 22 8:17 / /mnt/data\040dir rw - xfs /dev/sdb1 rw
25 22 x:y / /nowhere rw - tmpfs tmpfs rw
`
	m, err := parseMountInfo(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m[devNum{254, 0}] != "/" || m[devNum{8, 17}] != `/mnt/data\040dir` || len(m) != 3 {
		t.Fatalf("parsed %v", m)
	}
}

func TestCheckBlockDeviceRefusesNonDevices(t *testing.T) {
	if err := CheckBlockDevice(t.TempDir(), 0, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("a directory: %v", err)
	}
}
