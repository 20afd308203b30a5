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

// putPointers writes a pointer array into body (everything after a
// structure's header): with sums nil, as many 8-byte addresses as fit; with
// sums, n addresses then their n 4-byte sums. The rest of body is zeroed.
func putPointers(body []byte, n int, addrs []uint64, sums []uint32) {
	if sums == nil {
		putAddrs(body, addrs)
		return
	}
	putAddrs(body[:8*n], addrs)
	s := body[8*n:]
	m := min(len(sums), n)
	for i, c := range sums[:m] {
		le.PutUint32(s[4*i:], c)
	}
	clear(s[4*m:])
}

// getPointers is putPointers' reverse: len(dst) addresses and, when sums
// is not nil, len(sums) sums after n addresses.
func getPointers(body []byte, n int, dst []uint64, sums []uint32) {
	for i := range dst {
		dst[i] = le.Uint64(body[8*i:])
	}
	for i := range sums {
		sums[i] = le.Uint32(body[8*n+4*i:])
	}
}

// DataSum is the checksum a pointer carries for the data block b.
func DataSum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
