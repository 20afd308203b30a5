// Package ondisk holds every on-disk structure of the virtual log disk (VLD):
// the superblock, the two checkpoint slots, checkpoint directory blocks,
// virtual-log entries, piece copies and the tail record. One file per structure, each with
// its byte layout drawn in the doc comment.
//
// Rules shared by all structures:
//   - fixed-width little-endian fields;
//   - an 8-byte magic and a 16-bit format version first;
//   - the volume's 16-byte UUID, so that blocks of an earlier format of the
//     same image are never mistaken for live ones;
//   - a CRC-32C (Castagnoli) over the whole block except its last 4 bytes,
//     stored in those last 4 bytes.
//
// Decoders never panic and never allocate from an unchecked length. They
// return errors wrapping ErrZeroed (an all-zero block: nothing was ever
// written, or it was cleared), ErrBadMagic (some other kind of block),
// ErrChecksum (torn or corrupted) or ErrCorrupt (well-formed checksum but
// impossible contents). Recovery treats the first three as "not a record
// here" and the last as damage.
//
// The magics and layouts below are wire constants: never change them; add a
// new version instead (FormatVersion).
package ondisk
