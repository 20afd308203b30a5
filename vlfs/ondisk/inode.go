package ondisk

import "fmt"

// Inode is one inode as stored on disk. Inodes are packed InodeSize bytes
// each into inode blocks (BlockSize/InodeSize per block); inode number n
// lives in block n/InodesPerBlock, slot n%InodesPerBlock.
//
// Layout (256 bytes, little-endian):
//
//	  0  uint16 magic 0x4e49 ("IN")
//	  2  uint8  format version
//	  3  uint8  flags (0; reserved)
//	  4  uint32 mode (S_IFMT type bits | permission bits; 0 = free slot)
//	  8  uint32 link count
//	 12  uint32 uid
//	 16  uint32 gid
//	 20  uint32 rdev
//	 24  uint64 inode number (guards against misplaced blocks)
//	 32  uint64 generation (bumped each time the slot is reused)
//	 40  uint64 size in bytes
//	 48  uint64 blocks owned (data + indirect + xattr), in file-system blocks
//	 56  int64  atime seconds, 64 uint32 atime nanoseconds
//	 68  int64  mtime seconds, 76 uint32 mtime nanoseconds
//	 80  int64  ctime seconds, 88 uint32 ctime nanoseconds
//	 92  uint32 reserved (0)
//	 96  uint64 parent directory (directories only; 0 otherwise)
//	104  uint64 address of the xattr block (0 = none)
//	112  uint64 direct[12]  addresses of file blocks 0..11 (0 = hole)
//	208  uint64 indirect[3] single, double, triple indirect roots (0 = none):
//	                        addresses, or node numbers under FSVersionNodeMap
//	232  [20]byte reserved (0)
//	252  uint32 CRC-32C of the 256 bytes with this field zeroed
//
// A summed inode (format version SummedFormatVersion, FSVersionSums) has 8
// direct pointers and their data checksums where version 1 has 12:
//
//	112  uint64 direct[8]   addresses of file blocks 0..7 (0 = hole)
//	176  uint32 sum[8]      DataSum of each direct block (0 for a hole)
//	232  uint32 rootsum[3]  DataSum of each indirect root block (0 = none)
//	244  uint32 xattrsum    DataSum of the xattr block (0 = none)
//	248  [4]byte reserved (0)
//
// A free slot is either all zero (never used) or a valid record with mode 0,
// which keeps the generation for the next user of the slot.
type Inode struct {
	Mode, Nlink, Uid, Gid, Rdev uint32
	Ino, Gen, Size, Blocks      uint64
	Atime, Mtime, Ctime         Timespec
	Parent                      uint64
	Xattr                       uint64
	Direct                      [NumDirect]uint64
	Indirect                    [NumIndirect]uint64
	// Summed selects the summed layout: Direct[:NumDirectSummed] and
	// DirectSum[:NumDirectSummed] are stored, the rest must stay zero.
	Summed      bool
	DirectSum   [NumDirect]uint32
	IndirectSum [NumIndirect]uint32 // the root blocks' sums (summed only)
	XattrSum    uint32              // the xattr block's sum (summed only)
}

// Timespec is a time as seconds and nanoseconds since the Unix epoch.
type Timespec struct {
	Sec  int64
	Nsec uint32
}

// Wire constants of the inode. Never change.
const (
	InodeSize   = 256
	InodeMagic  = 0x4e49
	NumDirect   = 12
	NumIndirect = 3
	// InodeCRCOff is where the inode's checksum field starts (Checksum
	// with this offset gives the value it holds).
	InodeCRCOff = 252
)

// File-type bits of Mode, as in syscall.S_IF*. Never change.
const (
	ModeType = 0o170000
	ModeReg  = 0o100000
	ModeDir  = 0o040000
	ModeLnk  = 0o120000
	ModeFIFO = 0o010000
	ModeChr  = 0o020000
	ModeBlk  = 0o060000
	ModeSock = 0o140000
	ModePerm = 0o7777
)

// ValidType reports whether mode's type bits name a known file type.
func ValidType(mode uint32) bool {
	switch mode & ModeType {
	case ModeReg, ModeDir, ModeLnk, ModeFIFO, ModeChr, ModeBlk, ModeSock:
		return true
	}
	return false
}

// Free reports whether the slot holds no inode.
func (n *Inode) Free() bool { return n.Mode == 0 }

// Encode writes the inode into b[:InodeSize].
func (n *Inode) Encode(b []byte) {
	b = b[:InodeSize]
	clear(b)
	le.PutUint16(b[0:], InodeMagic)
	b[2] = n.layout()
	le.PutUint32(b[4:], n.Mode)
	le.PutUint32(b[8:], n.Nlink)
	le.PutUint32(b[12:], n.Uid)
	le.PutUint32(b[16:], n.Gid)
	le.PutUint32(b[20:], n.Rdev)
	le.PutUint64(b[24:], n.Ino)
	le.PutUint64(b[32:], n.Gen)
	le.PutUint64(b[40:], n.Size)
	le.PutUint64(b[48:], n.Blocks)
	putTime(b[56:], n.Atime)
	putTime(b[68:], n.Mtime)
	putTime(b[80:], n.Ctime)
	le.PutUint64(b[96:], n.Parent)
	le.PutUint64(b[104:], n.Xattr)
	if n.Summed {
		for i := range NumDirectSummed {
			le.PutUint64(b[112+8*i:], n.Direct[i])
			le.PutUint32(b[176+4*i:], n.DirectSum[i])
		}
		for i, c := range n.IndirectSum {
			le.PutUint32(b[232+4*i:], c)
		}
		le.PutUint32(b[244:], n.XattrSum)
	} else {
		for i, a := range n.Direct {
			le.PutUint64(b[112+8*i:], a)
		}
	}
	for i, a := range n.Indirect {
		le.PutUint64(b[208+8*i:], a)
	}
	seal(b, InodeCRCOff)
}

// DecodeInode parses the InodeSize bytes at b and checks that the record
// belongs to inode number ino. An all-zero slot returns ErrZeroed.
func DecodeInode(b []byte, ino uint64) (Inode, error) {
	if len(b) < InodeSize {
		return Inode{}, fmt.Errorf("inode %d: %d bytes: %w", ino, len(b), ErrTooSmall)
	}
	b = b[:InodeSize]
	if allZero(b) {
		return Inode{}, fmt.Errorf("inode %d: %w", ino, ErrZeroed)
	}
	if le.Uint16(b) != InodeMagic || (b[2] != FormatVersion && b[2] != SummedFormatVersion) {
		return Inode{}, fmt.Errorf("inode %d: bad magic or version: %w", ino, ErrCorrupt)
	}
	if !sealed(b, InodeCRCOff) {
		return Inode{}, fmt.Errorf("inode %d: checksum mismatch: %w", ino, ErrCorrupt)
	}
	n := decodeInodeFields(b)
	return n, n.validate(ino)
}

func decodeInodeFields(b []byte) Inode {
	n := Inode{
		Mode: le.Uint32(b[4:]), Nlink: le.Uint32(b[8:]), Uid: le.Uint32(b[12:]),
		Gid: le.Uint32(b[16:]), Rdev: le.Uint32(b[20:]),
		Ino: le.Uint64(b[24:]), Gen: le.Uint64(b[32:]), Size: le.Uint64(b[40:]),
		Blocks: le.Uint64(b[48:]),
		Atime:  getTime(b[56:]), Mtime: getTime(b[68:]), Ctime: getTime(b[80:]),
		Parent: le.Uint64(b[96:]), Xattr: le.Uint64(b[104:]),
		Summed: b[2] == SummedFormatVersion,
	}
	if n.Summed {
		for i := range NumDirectSummed {
			n.Direct[i] = le.Uint64(b[112+8*i:])
			n.DirectSum[i] = le.Uint32(b[176+4*i:])
		}
		for i := range n.IndirectSum {
			n.IndirectSum[i] = le.Uint32(b[232+4*i:])
		}
		n.XattrSum = le.Uint32(b[244:])
	} else {
		for i := range n.Direct {
			n.Direct[i] = le.Uint64(b[112+8*i:])
		}
	}
	for i := range n.Indirect {
		n.Indirect[i] = le.Uint64(b[208+8*i:])
	}
	return n
}

// layout is the format version n is encoded with.
func (n *Inode) layout() byte {
	if n.Summed {
		return SummedFormatVersion
	}
	return FormatVersion
}

// NumDirectFor is the number of direct pointers an inode holds.
func NumDirectFor(summed bool) int {
	if summed {
		return NumDirectSummed
	}
	return NumDirect
}

func (n *Inode) validate(ino uint64) error {
	switch {
	case n.Ino != ino:
		return fmt.Errorf("inode %d: record says inode %d: %w", ino, n.Ino, ErrCorrupt)
	case n.Mode != 0 && !ValidType(n.Mode):
		return fmt.Errorf("inode %d: mode %#o: %w", ino, n.Mode, ErrCorrupt)
	case n.Atime.Nsec >= 1e9 || n.Mtime.Nsec >= 1e9 || n.Ctime.Nsec >= 1e9:
		return fmt.Errorf("inode %d: nanoseconds out of range: %w", ino, ErrCorrupt)
	}
	return nil
}

func putTime(b []byte, t Timespec) {
	le.PutUint64(b, uint64(t.Sec))
	le.PutUint32(b[8:], t.Nsec)
}

func getTime(b []byte) Timespec {
	return Timespec{Sec: int64(le.Uint64(b)), Nsec: le.Uint32(b[8:])}
}
