// Package ondisk owns the byte layout of every structure vlfs stores: the
// superblock kept in the volume's AppData, inodes (packed 16 to a 4 KiB
// inode block), indirect blocks, directory blocks, extended-attribute blocks
// and the inode-map pieces that form the virtual log.
//
// Every structure is fixed-width little-endian with a magic, a format
// version and a CRC-32C (Castagnoli) over its bytes. Decoders never panic and
// never allocate from an unchecked length: bad input returns an error wrapping
// ErrCorrupt (or ErrZeroed for an all-zero record, so that callers can tell a
// never-written slot from a damaged one). The package holds no state.
//
// Wire constants (magics, versions, offsets, sizes) are marked "never change":
// changing one makes existing images unreadable; add a new FormatVersion
// instead.
package ondisk
