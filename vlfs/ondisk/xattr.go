package ondisk

import "fmt"

// An xattr block holds all extended attributes of one inode.
//
// Layout (one file-system block, little-endian):
//
//	 0  block header: magic "VLXB", version, level 0, entry count, owner inode, CRC
//	24  entries, packed, count of them:
//	      uint8  name length (1..MaxXattrName)
//	      uint8  reserved (0)
//	      uint16 value length
//	      [name length]byte name
//	      [value length]byte value
//	    then zero bytes to the end of the block
type Xattr struct {
	Name  string
	Value []byte
}

// Wire constants of xattr blocks. Never change.
const (
	MaxXattrName  = 255
	xattrEntryHdr = 4
)

// XattrEntrySize is the on-disk size of one attribute.
func XattrEntrySize(name string, value []byte) int { return xattrEntryHdr + len(name) + len(value) }

// XattrCapacity is the entry space of an xattr block of bs bytes.
func XattrCapacity(bs int) int { return bs - BlockHeaderSize }

// EncodeXattrs writes an xattr block of inode owner holding xs into b.
func EncodeXattrs(b []byte, owner uint64, xs []Xattr) error {
	off := BlockHeaderSize
	for _, x := range xs {
		n := XattrEntrySize(x.Name, x.Value)
		if len(x.Name) == 0 || len(x.Name) > MaxXattrName || len(x.Value) > 0xffff || off+n > len(b) || len(xs) > 0xffff {
			return fmt.Errorf("xattr block of inode %d: attribute %q (%d bytes): %w", owner, x.Name, len(x.Value), ErrTooLarge)
		}
		b[off] = uint8(len(x.Name))
		b[off+1] = 0
		le.PutUint16(b[off+2:], uint16(len(x.Value)))
		copy(b[off+xattrEntryHdr:], x.Name)
		copy(b[off+xattrEntryHdr+len(x.Name):], x.Value)
		off += n
	}
	clear(b[off:])
	putHeader(b, blockHeader{magic: XattrMagic, count: uint16(len(xs)), owner: owner})
	seal(b, BlockCRCOff)
	return nil
}

// DecodeXattrs parses the xattr block b of inode owner and calls fn for
// every attribute; Value aliases a fresh copy, not b.
func DecodeXattrs(b []byte, owner uint64, fn func(Xattr) error) error {
	h, err := getHeader("xattr", b, XattrMagic, owner)
	if err != nil {
		return err
	}
	off := BlockHeaderSize
	for i := 0; i < int(h.count); i++ {
		if off+xattrEntryHdr > len(b) {
			return fmt.Errorf("xattr block of inode %d: entry past the end: %w", owner, ErrCorrupt)
		}
		nl, vl := int(b[off]), int(le.Uint16(b[off+2:]))
		end := off + xattrEntryHdr + nl + vl
		if nl == 0 || end > len(b) {
			return fmt.Errorf("xattr block of inode %d: bad entry at %d: %w", owner, off, ErrCorrupt)
		}
		name := string(b[off+xattrEntryHdr : off+xattrEntryHdr+nl])
		value := append([]byte{}, b[off+xattrEntryHdr+nl:end]...)
		if err := fn(Xattr{Name: name, Value: value}); err != nil {
			return err
		}
		off = end
	}
	return nil
}
