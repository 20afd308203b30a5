package ondisk

import (
	"fmt"
	"strings"
)

// A directory block holds some of a directory's entries; a directory's
// blocks are its file data. "." and ".." are not stored (the inode keeps
// the parent).
//
// Layout (one file-system block, little-endian):
//
//	 0  block header: magic "VLDB", version, level 0, entry count, owner inode, CRC
//	24  entries, packed, count of them:
//	      uint64 inode number
//	      uint8  file type (mode >> 12)
//	      uint8  name length (1..MaxNameLen)
//	      [name length]byte name (no '/' or NUL; not "." or "..")
//	    then zero bytes to the end of the block
type DirEntry struct {
	Name string
	Ino  uint64
	Type uint8 // mode's S_IFMT bits >> 12
}

// Wire constants of directory blocks. Never change.
const (
	MaxNameLen      = 255
	dirEntryHdrSize = 10
)

// DirEntrySize is the on-disk size of an entry with a name of n bytes.
func DirEntrySize(n int) int { return dirEntryHdrSize + n }

// DirCapacity is the entry space of a directory block of bs bytes.
func DirCapacity(bs int) int { return bs - BlockHeaderSize }

// ValidName reports whether name may be stored in a directory.
func ValidName(name string) bool {
	// Two IndexByte scans, not ContainsAny: every name of a directory block
	// is checked again each time the block is encoded, and ContainsAny
	// builds a byte set per call (2 % of all CPU in an in-process varmail run).
	return len(name) > 0 && len(name) <= MaxNameLen && name != "." && name != ".." &&
		strings.IndexByte(name, '/') < 0 && strings.IndexByte(name, 0) < 0
}

// EncodeDir writes a directory block of inode owner holding ents into b.
func EncodeDir(b []byte, owner uint64, ents []DirEntry) error {
	off := BlockHeaderSize
	for _, e := range ents {
		if !ValidName(e.Name) {
			return fmt.Errorf("directory block of inode %d: name %q: %w", owner, e.Name, ErrCorrupt)
		}
		if off+DirEntrySize(len(e.Name)) > len(b) || len(ents) > 0xffff {
			return fmt.Errorf("directory block of inode %d: %d entries: %w", owner, len(ents), ErrTooLarge)
		}
		le.PutUint64(b[off:], e.Ino)
		b[off+8] = e.Type
		b[off+9] = uint8(len(e.Name))
		copy(b[off+dirEntryHdrSize:], e.Name)
		off += DirEntrySize(len(e.Name))
	}
	clear(b[off:])
	putHeader(b, blockHeader{magic: DirMagic, count: uint16(len(ents)), owner: owner})
	seal(b, BlockCRCOff)
	return nil
}

// DecodeDir parses the directory block b of inode owner and calls fn for
// every entry in order; fn's error stops the walk and is returned.
func DecodeDir(b []byte, owner uint64, fn func(DirEntry) error) error {
	h, err := getHeader("directory", b, DirMagic, owner)
	if err != nil {
		return err
	}
	if h.level != 0 {
		return fmt.Errorf("directory block of inode %d: level %d: %w", owner, h.level, ErrCorrupt)
	}
	off := BlockHeaderSize
	for i := 0; i < int(h.count); i++ {
		e, n, err := decodeDirEntry(b[off:], owner)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
		off += n
	}
	return nil
}

func decodeDirEntry(b []byte, owner uint64) (DirEntry, int, error) {
	if len(b) < dirEntryHdrSize {
		return DirEntry{}, 0, fmt.Errorf("directory block of inode %d: entry past the end: %w", owner, ErrCorrupt)
	}
	n := int(b[9])
	if len(b) < DirEntrySize(n) {
		return DirEntry{}, 0, fmt.Errorf("directory block of inode %d: name past the end: %w", owner, ErrCorrupt)
	}
	e := DirEntry{Ino: le.Uint64(b), Type: b[8], Name: string(b[dirEntryHdrSize : dirEntryHdrSize+n])}
	if e.Ino == 0 || !ValidType(uint32(e.Type)<<12) || !ValidName(e.Name) {
		return DirEntry{}, 0, fmt.Errorf("directory block of inode %d: bad entry %q -> %d type %d: %w", owner, e.Name, e.Ino, e.Type, ErrCorrupt)
	}
	return e, DirEntrySize(n), nil
}
