package profile

import (
	"bytes"
	"encoding/binary"
)

// SignatureBytes is how much of a device Identify needs to see: the
// furthest signature it checks (ISO 9660 at 32 KiB, btrfs at 64 KiB) fits.
const SignatureBytes = 68 << 10

// signature is a magic at a fixed offset.
type signature struct {
	what  string
	off   int
	magic []byte
}

// signatures are checked in order; the first match names the content.
// Offsets and magics are those of blkid (util-linux libblkid) for the
// same formats.
var signatures = []signature{
	{"a vlfs/VLD volume", 0, []byte("VLDSUPER")},
	{"LUKS encrypted volume", 0, []byte("LUKS\xba\xbe")},
	{"XFS file system", 0, []byte("XFSB")},
	{"squashfs image", 0, []byte("hsqs")},
	{"NTFS file system", 3, []byte("NTFS    ")},
	{"FAT file system", 54, []byte("FAT")},
	{"FAT32 file system", 82, []byte("FAT32")},
	{"LVM2 physical volume", 536, []byte("LVM2 001")},
	{"GPT partition table", 512, []byte("EFI PART")},
	{"ext2/3/4 file system", 1080, []byte{0x53, 0xef}},
	{"F2FS file system", 1024, []byte{0x10, 0x20, 0xf5, 0xf2}},
	{"Linux swap space", 4086, []byte("SWAPSPACE2")},
	{"Linux swap space (old)", 4086, []byte("SWAP-SPACE")},
	{"ISO 9660 image", 32769, []byte("CD001")},
	{"btrfs file system", 65600, []byte("_BHRfS_M")},
}

// Identify names what the first bytes of a device hold, or "" if it finds
// no signature it knows. It reads only within head and never panics.
func Identify(head []byte) string {
	for _, s := range signatures {
		if s.off+len(s.magic) <= len(head) && bytes.Equal(head[s.off:s.off+len(s.magic)], s.magic) {
			if s.off == 1080 && !plausibleExt(head) {
				continue
			}
			return s.what
		}
	}
	if len(head) >= 512 && head[510] == 0x55 && head[511] == 0xaa {
		return "an MBR partition table or boot sector"
	}
	return ""
}

// plausibleExt double-checks the two-byte ext magic, which random data
// matches one time in 65536: the block-size exponent must be small and
// the inode count non-zero.
func plausibleExt(head []byte) bool {
	sb := head[1024:]
	inodes := binary.LittleEndian.Uint32(sb[0:])
	logBlock := binary.LittleEndian.Uint32(sb[24:])
	return inodes != 0 && logBlock <= 6
}
