package ondisk

import (
	"encoding/binary"
	"fmt"
)

// CheckpointMagic starts a checkpoint slot. Wire constant.
const CheckpointMagic = "VLDCKPT1"

// CheckpointVersion is the checkpoint's own format version. Version 2
// added the extra log tracks; a checkpoint that lists none is still
// written as version 1 (FormatVersion), and version-1 slots decode with
// none. A build older than version 2 ignores a version-2 slot: it then
// opens from the other slot, an older checkpoint, and would lose what was
// committed since. So a volume whose compactor ran (which lists extra
// tracks) must not be opened by such a build (docs/vld.md).
//
// Version 3 adds a copy of each directory block (issue 34: one damaged
// directory block lost every piece it listed) and is written to both
// slots at once; every checkpoint is written as version 3, so that one
// valid slot of a version-3 checkpoint means the other was damaged. A
// build older than version 3 finds no checkpoint it reads and refuses the
// volume.
const CheckpointVersion = 3

// CheckpointDirSeqsVersion (4, issue 33) adds, for each directory block,
// the sequence of the checkpoint that wrote it: a checkpoint keeps the
// previous one's directory blocks whose contents did not change, where a
// version-3 checkpoint wrote every block again (a file system with 1,024
// record pieces paid seven blocks and their copies for each). Written
// when the sequences fit beside the rest; a checkpoint that writes every
// block needs none and is written as version 3. A build older than
// version 4 ignores such a slot and refuses the volume.
const CheckpointDirSeqsVersion = 4

// checkpointExtraVersion is the version that added the extra log tracks.
const checkpointExtraVersion = 2

// Checkpoint is the record in the checkpoint slots (blocks 1 and 2): from
// version 3 on both slots hold the same checkpoint, written by one
// request (before, the slots alternated). The newer valid one wins. It names the directory blocks that list the
// current location of every piece, and the tracks that every virtual-log
// entry written after it lies in (the bounded tail scan): a window of
// consecutive tracks, plus extra tracks listed one by one (empty tracks
// and the best candidates for compaction when it was written, so that
// entries can follow the data onto them).
//
//	offset size field
//	0      8    magic "VLDCKPT1"
//	8      2    format version (3; 2 has no directory copies, 1 no extra tracks)
//	10     2    directory copies: 0 or n (version 3)
//	12     4    number of extra log tracks (m; version 2)
//	16     16   volume UUID
//	32     8    checkpoint sequence (1, 2, ...)
//	40     8    log sequence: entries with seq <= this are covered
//	48     8    next sequence number
//	56     4    scan window: first track
//	60     4    scan window: number of tracks
//	64     4    number of pieces listed
//	68     4    number of directory blocks (n)
//	72     8    simulated clock (float64 ms bits)
//	80     8n   directory block addresses
//	80+8n  4m   extra log tracks (version 2)
//	80+8n+4m 8n directory block copies (version 3, if offset 10 says n)
//	..     8n   checkpoint sequence that wrote each directory block and
//	            its copy (version 4; each in [1, checkpoint sequence])
//	bs-4   4    CRC-32C
type Checkpoint struct {
	UUID         UUID
	Seq          uint64
	LogSeq       uint64
	NextSeq      uint64
	WindowStart  uint32
	WindowTracks uint32
	NumPieces    uint32
	SimMs        uint64
	DirBlocks    []uint64
	Extra        []uint32 // extra log tracks, beyond the window
	// DirCopies, if set, holds a copy of each directory block (same
	// bytes), DirCopies[i] of DirBlocks[i].
	DirCopies []uint64
	// DirSeqs, if set (version 4), holds the sequence of the checkpoint
	// that wrote each directory block (and its copy), DirSeqs[i] of
	// DirBlocks[i]: a block an earlier checkpoint wrote is kept as it is.
	// Unset, every block was written by this checkpoint (Seq).
	DirSeqs []uint64
	// Version is the format version the slot was read in (decode only).
	Version uint16
}

const ckptHeader = 80

// MaxDirBlocks is how many directory blocks a checkpoint of block size bs
// can name.
func MaxDirBlocks(bs int) int { return (bs - ckptHeader - 4) / 8 }

// MaxExtraTracks is how many extra log tracks a checkpoint of block size bs
// naming dirBlocks directory blocks can list.
func MaxExtraTracks(bs, dirBlocks int) int { return max(0, (bs-ckptHeader-4-8*dirBlocks)/4) }

// CopiesFit reports whether a checkpoint of block size bs naming
// dirBlocks directory blocks and extra tracks can name a copy of each.
func CopiesFit(bs, dirBlocks, extra int) bool {
	return ckptHeader+16*dirBlocks+4*extra+4 <= bs && dirBlocks < 1<<16
}

// DirSeqsFit reports whether a checkpoint of block size bs naming
// dirBlocks directory blocks, extra tracks and copies (0 or dirBlocks)
// can also name the sequence that wrote each directory block.
func DirSeqsFit(bs, dirBlocks, extra, copies int) bool {
	return ckptHeader+16*dirBlocks+4*extra+8*copies+4 <= bs
}

// DirSeq is the sequence of the checkpoint that wrote directory block i.
func (c *Checkpoint) DirSeq(i int) uint64 {
	if c.DirSeqs == nil {
		return c.Seq
	}
	return c.DirSeqs[i]
}

// Encode writes c into the block b.
func (c *Checkpoint) Encode(b []byte) error {
	if len(c.DirBlocks) > MaxDirBlocks(len(b)) {
		return fmt.Errorf("checkpoint: %d directory blocks: %w", len(c.DirBlocks), ErrTooSmall)
	}
	if len(c.Extra) > MaxExtraTracks(len(b), len(c.DirBlocks)) {
		return fmt.Errorf("checkpoint: %d extra tracks beside %d directory blocks: %w", len(c.Extra), len(c.DirBlocks), ErrTooSmall)
	}
	if len(c.DirCopies) > 0 && (len(c.DirCopies) != len(c.DirBlocks) || !CopiesFit(len(b), len(c.DirBlocks), len(c.Extra))) {
		return fmt.Errorf("checkpoint: %d directory copies of %d blocks beside %d extra tracks: %w", len(c.DirCopies), len(c.DirBlocks), len(c.Extra), ErrTooSmall)
	}
	version := uint16(CheckpointVersion)
	if c.DirSeqs != nil {
		if len(c.DirSeqs) != len(c.DirBlocks) || !DirSeqsFit(len(b), len(c.DirBlocks), len(c.Extra), len(c.DirCopies)) {
			return fmt.Errorf("checkpoint: %d directory sequences of %d blocks beside %d extra tracks: %w", len(c.DirSeqs), len(c.DirBlocks), len(c.Extra), ErrTooSmall)
		}
		for i, s := range c.DirSeqs {
			if s == 0 || s > c.Seq {
				return fmt.Errorf("checkpoint %d: directory block %d written by checkpoint %d: %w", c.Seq, i, s, ErrCorrupt)
			}
		}
		version = CheckpointDirSeqsVersion
	}
	clear(b)
	copy(b, CheckpointMagic)
	le := binary.LittleEndian
	// Version 3 or later: it says both slots hold the checkpoint, so one
	// slot alone means the other was damaged.
	le.PutUint16(b[8:], version)
	le.PutUint16(b[10:], uint16(len(c.DirCopies)))
	le.PutUint32(b[12:], uint32(len(c.Extra)))
	copy(b[16:32], c.UUID[:])
	le.PutUint64(b[32:], c.Seq)
	le.PutUint64(b[40:], c.LogSeq)
	le.PutUint64(b[48:], c.NextSeq)
	le.PutUint32(b[56:], c.WindowStart)
	le.PutUint32(b[60:], c.WindowTracks)
	le.PutUint32(b[64:], c.NumPieces)
	le.PutUint32(b[68:], uint32(len(c.DirBlocks)))
	le.PutUint64(b[72:], c.SimMs)
	for i, a := range c.DirBlocks {
		le.PutUint64(b[ckptHeader+8*i:], a)
	}
	at := ckptHeader + 8*len(c.DirBlocks)
	for i, t := range c.Extra {
		le.PutUint32(b[at+4*i:], t)
	}
	at += 4 * len(c.Extra)
	for i, a := range c.DirCopies {
		le.PutUint64(b[at+8*i:], a)
	}
	at += 8 * len(c.DirCopies)
	for i, s := range c.DirSeqs {
		le.PutUint64(b[at+8*i:], s)
	}
	seal(b)
	return nil
}

// DecodeCheckpoint parses a checkpoint slot.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	version, err := openVersions(b, CheckpointMagic, "checkpoint", FormatVersion, checkpointExtraVersion, CheckpointVersion, CheckpointDirSeqsVersion)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	c := &Checkpoint{
		Seq: le.Uint64(b[32:]), LogSeq: le.Uint64(b[40:]), NextSeq: le.Uint64(b[48:]),
		WindowStart: le.Uint32(b[56:]), WindowTracks: le.Uint32(b[60:]),
		NumPieces: le.Uint32(b[64:]), SimMs: le.Uint64(b[72:]),
	}
	copy(c.UUID[:], b[16:32])
	c.Version = version
	n := le.Uint32(b[68:])
	if int64(n) > int64(MaxDirBlocks(len(b))) {
		return nil, fmt.Errorf("checkpoint: %d directory blocks: %w", n, ErrCorrupt)
	}
	if c.NextSeq <= c.LogSeq {
		return nil, fmt.Errorf("checkpoint: next seq %d <= log seq %d: %w", c.NextSeq, c.LogSeq, ErrCorrupt)
	}
	if int64(c.NumPieces) > int64(n)*int64(DirEntriesPerBlock(len(b))) {
		return nil, fmt.Errorf("checkpoint: %d pieces in %d directory blocks: %w", c.NumPieces, n, ErrCorrupt)
	}
	c.DirBlocks = make([]uint64, n)
	for i := range c.DirBlocks {
		c.DirBlocks[i] = le.Uint64(b[ckptHeader+8*i:])
	}
	if version < checkpointExtraVersion {
		return c, nil
	}
	m := le.Uint32(b[12:])
	if int64(m) > int64(MaxExtraTracks(len(b), int(n))) {
		return nil, fmt.Errorf("checkpoint: %d extra tracks beside %d directory blocks: %w", m, n, ErrCorrupt)
	}
	at := ckptHeader + 8*int(n)
	if m > 0 {
		c.Extra = make([]uint32, m)
		for i := range c.Extra {
			c.Extra[i] = le.Uint32(b[at+4*i:])
		}
	}
	if version < CheckpointVersion {
		return c, nil
	}
	k := uint32(le.Uint16(b[10:]))
	if k != 0 && (k != n || !CopiesFit(len(b), int(n), int(m))) {
		return nil, fmt.Errorf("checkpoint: %d directory copies of %d blocks beside %d extra tracks: %w", k, n, m, ErrCorrupt)
	}
	at += 4 * int(m)
	if k > 0 {
		c.DirCopies = make([]uint64, k)
		for i := range c.DirCopies {
			c.DirCopies[i] = le.Uint64(b[at+8*i:])
		}
	}
	if version < CheckpointDirSeqsVersion {
		return c, nil
	}
	if !DirSeqsFit(len(b), int(n), int(m), int(k)) {
		return nil, fmt.Errorf("checkpoint: %d directory sequences beside %d copies and %d extra tracks: %w", n, k, m, ErrCorrupt)
	}
	at += 8 * int(k)
	c.DirSeqs = make([]uint64, n)
	for i := range c.DirSeqs {
		s := le.Uint64(b[at+8*i:])
		if s == 0 || s > c.Seq {
			return nil, fmt.Errorf("checkpoint %d: directory block %d written by checkpoint %d: %w", c.Seq, i, s, ErrCorrupt)
		}
		c.DirSeqs[i] = s
	}
	return c, nil
}
