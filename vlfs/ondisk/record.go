package ondisk

import (
	"fmt"
	"math"
)

// A log record (FSVersionRecords) is what a synchronous update of regular
// files commits instead of their indirect blocks, inode blocks and
// inode-map pieces: for each file, its new size, block count and times,
// and the new address of every block written since the previous commit.
// Those holders are rewritten later, by a full commit, and recovery
// replays the records made since that commit (LFS roll-forward, in the
// virtual log's own terms).
//
// Records are virtual-log pieces too: record number s of an epoch is
// piece RecordPieceBase+s (1 <= s <= MaxRecordSlots), and piece
// RecordPieceBase itself holds the epoch. Every full commit that follows
// records starts a new epoch in the same atomic commit, which voids every
// record of the old one without rewriting its pieces.
//
// Record layout (at most the volume's piece payload size, little-endian):
//
//	 0  uint32 magic "VREC"
//	 4  uint8  format version
//	 5  [3]byte reserved (0)
//	 8  uint64 epoch
//	16  uint32 record number s within the epoch (the piece is RecordPieceBase+s)
//	20  uint32 bytes used (header included)
//	24  uint32 CRC-32C of the used bytes with this field zeroed
//	28  uint16 number of files
//	30  uint16 reserved (0)
//	32  files, each:
//	     0  uint64 inode number
//	     8  uint64 size in bytes
//	    16  uint64 blocks owned
//	    24  int64  atime seconds, 32 uint32 atime nanoseconds
//	    36  int64  mtime seconds, 44 uint32 mtime nanoseconds
//	    48  int64  ctime seconds, 56 uint32 ctime nanoseconds
//	    60  uint32 number of block pointers n
//	    64  n x (uint64 logical block number, uint64 address)
//
// A summed record (version SummedFormatVersion, FSVersionSums) has each
// pointer followed by the data block's checksum:
//
//	64  n x (uint64 logical block number, uint64 address, uint32 DataSum)
//
// Epoch layout (piece RecordPieceBase):
//
//	 0  uint32 magic "VEPO"
//	 4  uint8  format version
//	 5  [3]byte reserved (0)
//	 8  uint64 epoch
//	16  uint32 CRC-32C of these 20 bytes with this field zeroed
type Record struct {
	Epoch uint64
	Seq   uint32
	Files []RecordFile
	// Summed selects the summed layout (each pointer carries Sum).
	Summed bool
}

// RecordFile is one file's part of a record.
type RecordFile struct {
	Ino, Size, Blocks   uint64
	Atime, Mtime, Ctime Timespec
	Ptrs                []RecordPtr
}

// RecordPtr says logical block Lbn of the file is now at Addr, whose
// bytes have checksum Sum (summed records only).
type RecordPtr struct {
	Lbn, Addr uint64
	Sum       uint32
}

// Wire constants of log records. Never change.
const (
	RecordMagic      = 0x43455256 // "VREC"
	EpochMagic       = 0x4f504556 // "VEPO"
	RecordHeaderSize = 32
	RecordFileSize   = 64
	RecordPtrSize    = 16
	// RecordSummedPtrSize is a summed record's pointer size.
	RecordSummedPtrSize = 20
	EpochSize           = 20
	// RecordUsedOff is where a record's count of bytes used starts.
	RecordUsedOff = 20
	// RecordCRCOff is where a record's checksum field starts (Checksum of
	// the bytes used, with this offset, gives the value it holds).
	RecordCRCOff = 24
	// EpochCRCOff is where the epoch's checksum field starts (Checksum
	// with this offset gives the value it holds).
	EpochCRCOff = 16
	// RecordPieceBase is the epoch's piece; records follow it. Node pieces
	// (NodePieceBase and up) stay below it.
	RecordPieceBase = 0xffff0000
	// MaxRecordSlots bounds the records of one epoch (and so the piece
	// numbers they take).
	MaxRecordSlots = 0xffff
)

// IsRecordPiece reports whether piece p is the epoch or a record.
func IsRecordPiece(p uint32) bool { return p >= RecordPieceBase }

// Size is the encoded size of r.
func (r *Record) Size() int {
	n := RecordHeaderSize
	for i := range r.Files {
		n += RecordFileSize + r.PtrSize()*len(r.Files[i].Ptrs)
	}
	return n
}

// PtrSize is the encoded size of one of r's pointers.
func (r *Record) PtrSize() int { return RecordPtrSizeFor(r.Summed) }

// RecordPtrSizeFor is a record pointer's encoded size.
func RecordPtrSizeFor(summed bool) int {
	if summed {
		return RecordSummedPtrSize
	}
	return RecordPtrSize
}

// layout is the format version r is encoded with.
func (r *Record) layout() byte {
	if r.Summed {
		return SummedFormatVersion
	}
	return FormatVersion
}

// EncodeRecord writes r into b and returns the bytes used; ErrTooLarge if
// it does not fit b.
func EncodeRecord(b []byte, r *Record) (int, error) {
	n := r.Size()
	switch {
	case n > len(b):
		return 0, fmt.Errorf("record %d: %d bytes, payload holds %d: %w", r.Seq, n, len(b), ErrTooLarge)
	case len(r.Files) > math.MaxUint16:
		return 0, fmt.Errorf("record %d: %d files: %w", r.Seq, len(r.Files), ErrTooLarge)
	case r.Seq == 0 || r.Seq > MaxRecordSlots:
		return 0, fmt.Errorf("record number %d out of 1..%d: %w", r.Seq, MaxRecordSlots, ErrTooLarge)
	}
	clear(b[:RecordHeaderSize])
	le.PutUint32(b[0:], RecordMagic)
	b[4] = r.layout()
	le.PutUint64(b[8:], r.Epoch)
	le.PutUint32(b[16:], r.Seq)
	le.PutUint32(b[RecordUsedOff:], uint32(n))
	le.PutUint16(b[28:], uint16(len(r.Files)))
	off := RecordHeaderSize
	for i := range r.Files {
		f := &r.Files[i]
		e := b[off:]
		le.PutUint64(e[0:], f.Ino)
		le.PutUint64(e[8:], f.Size)
		le.PutUint64(e[16:], f.Blocks)
		putTime(e[24:], f.Atime)
		putTime(e[36:], f.Mtime)
		putTime(e[48:], f.Ctime)
		le.PutUint32(e[60:], uint32(len(f.Ptrs)))
		off += RecordFileSize
		for _, p := range f.Ptrs {
			le.PutUint64(b[off:], p.Lbn)
			le.PutUint64(b[off+8:], p.Addr)
			if r.Summed {
				le.PutUint32(b[off+16:], p.Sum)
			}
			off += r.PtrSize()
		}
	}
	seal(b[:n], RecordCRCOff)
	return n, nil
}

// DecodeRecord parses the payload of piece RecordPieceBase+seq.
func DecodeRecord(b []byte, seq uint32) (Record, error) {
	if len(b) < RecordHeaderSize {
		return Record{}, fmt.Errorf("record %d: %d bytes: %w", seq, len(b), ErrTooSmall)
	}
	if allZero(b) {
		return Record{}, fmt.Errorf("record %d: %w", seq, ErrZeroed)
	}
	n := int(le.Uint32(b[RecordUsedOff:]))
	switch {
	case le.Uint32(b) != RecordMagic || (b[4] != FormatVersion && b[4] != SummedFormatVersion):
		return Record{}, fmt.Errorf("record %d: bad magic or version: %w", seq, ErrCorrupt)
	case n < RecordHeaderSize || n > len(b):
		return Record{}, fmt.Errorf("record %d: says %d bytes of %d: %w", seq, n, len(b), ErrCorrupt)
	case !sealed(b[:n], RecordCRCOff):
		return Record{}, fmt.Errorf("record %d: checksum mismatch: %w", seq, ErrCorrupt)
	case le.Uint32(b[16:]) != seq:
		return Record{}, fmt.Errorf("record %d: says record %d: %w", seq, le.Uint32(b[16:]), ErrCorrupt)
	}
	r := Record{Epoch: le.Uint64(b[8:]), Seq: seq, Summed: b[4] == SummedFormatVersion}
	ps := r.PtrSize()
	nf := int(le.Uint16(b[28:]))
	off := RecordHeaderSize
	for range nf {
		if off+RecordFileSize > n {
			return Record{}, fmt.Errorf("record %d: files overrun %d bytes: %w", seq, n, ErrCorrupt)
		}
		e := b[off:]
		f := RecordFile{Ino: le.Uint64(e[0:]), Size: le.Uint64(e[8:]), Blocks: le.Uint64(e[16:]),
			Atime: getTime(e[24:]), Mtime: getTime(e[36:]), Ctime: getTime(e[48:])}
		if f.Atime.Nsec >= 1e9 || f.Mtime.Nsec >= 1e9 || f.Ctime.Nsec >= 1e9 {
			return Record{}, fmt.Errorf("record %d: inode %d: nanoseconds out of range: %w", seq, f.Ino, ErrCorrupt)
		}
		np := int(le.Uint32(e[60:]))
		off += RecordFileSize
		if np > (n-off)/ps {
			return Record{}, fmt.Errorf("record %d: inode %d: %d pointers overrun %d bytes: %w", seq, f.Ino, np, n, ErrCorrupt)
		}
		f.Ptrs = make([]RecordPtr, np)
		for j := range f.Ptrs {
			f.Ptrs[j] = RecordPtr{Lbn: le.Uint64(b[off:]), Addr: le.Uint64(b[off+8:])}
			if r.Summed {
				f.Ptrs[j].Sum = le.Uint32(b[off+16:])
			}
			off += ps
		}
		r.Files = append(r.Files, f)
	}
	if off != n {
		return Record{}, fmt.Errorf("record %d: %d bytes used, header says %d: %w", seq, off, n, ErrCorrupt)
	}
	return r, nil
}

// EncodeEpoch writes the epoch piece's payload into b.
func EncodeEpoch(b []byte, epoch uint64) error {
	if len(b) < EpochSize {
		return fmt.Errorf("epoch: %d bytes: %w", len(b), ErrTooSmall)
	}
	clear(b[:EpochSize])
	le.PutUint32(b[0:], EpochMagic)
	b[4] = FormatVersion
	le.PutUint64(b[8:], epoch)
	seal(b[:EpochSize], EpochCRCOff)
	return nil
}

// DecodeEpoch parses the epoch piece's payload.
func DecodeEpoch(b []byte) (uint64, error) {
	switch {
	case len(b) < EpochSize:
		return 0, fmt.Errorf("epoch: %d bytes: %w", len(b), ErrTooSmall)
	case allZero(b):
		return 0, fmt.Errorf("epoch: %w", ErrZeroed)
	case le.Uint32(b) != EpochMagic || b[4] != FormatVersion:
		return 0, fmt.Errorf("epoch: bad magic or version: %w", ErrCorrupt)
	case !sealed(b[:EpochSize], EpochCRCOff):
		return 0, fmt.Errorf("epoch: checksum mismatch: %w", ErrCorrupt)
	}
	return le.Uint64(b[8:]), nil
}
