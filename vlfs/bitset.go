package vlfs

import "math/bits"

// Bitsets of numbers in use (inode numbers, node numbers): bit n of word
// n/64. A set grows when a bit past its end is set.

func bitIsSet(set []uint64, n uint64) bool {
	w := n / 64
	return w < uint64(len(set)) && set[w]&(1<<(n%64)) != 0
}

// setBit sets bit n and reports whether it was clear.
func setBit(set *[]uint64, n uint64) bool {
	for n/64 >= uint64(len(*set)) {
		*set = append(*set, 0)
	}
	w, b := n/64, uint64(1)<<(n%64)
	was := (*set)[w]&b != 0
	(*set)[w] |= b
	return !was
}

// clearBit clears bit n, which must be inside the set.
func clearBit(set []uint64, n uint64) { set[n/64] &^= 1 << (n % 64) }

// firstFree returns the lowest clear bit of *set from word hint/64 on
// (every bit below hint is set), growing the set when all are set.
func firstFree(set *[]uint64, hint uint64) uint64 {
	for w := hint / 64; ; w++ {
		if w >= uint64(len(*set)) {
			*set = append(*set, 0)
		}
		if x := (*set)[w]; x != ^uint64(0) {
			return w*64 + uint64(bits.TrailingZeros64(^x))
		}
	}
}
