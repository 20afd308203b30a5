package ondisk

import "hash/crc32"

// Data checksums (FSVersionSums). Every block pointer that names a data
// block carries the CRC-32C of the block's bytes beside it, so a reader
// knows what it should find before it reads (ZFS keeps the checksum in
// the block pointer the same way): a data block damaged on disk, a write
// the device lost, or a stale older version of the block reads back as a
// mismatch instead of wrong bytes. Metadata blocks (inode, indirect,
// directory, xattr) already seal themselves (magic, owner, level, CRC).
//
// The structures that hold pointers carry SummedFormatVersion in their
// version byte when they hold sums:
//
//   - inode: 8 direct pointers, then their 8 sums, in the 96 bytes where
//     version 1 keeps 12 direct pointers (inode.go);
//   - indirect block: n addresses, then n sums (n = PerIndirectSummed);
//   - log record: a 4-byte sum after each (lbn, address) pair.

// SummedFormatVersion is the layout version of an inode, indirect block or
// log record that holds a data checksum beside each block pointer.
const SummedFormatVersion = 2

// NumDirectSummed is the number of direct pointers a summed inode holds.
const NumDirectSummed = 8

// DataSum is the checksum a pointer carries for the data block b.
func DataSum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
