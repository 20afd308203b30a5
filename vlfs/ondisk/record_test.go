package ondisk

import (
	"errors"
	"reflect"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		r    Record
	}{
		{"times only", Record{Epoch: 1, Seq: 1, Files: []RecordFile{{Ino: 2, Size: 10, Ptrs: []RecordPtr{}}}}},
		{"pointers", Record{Epoch: 1 << 40, Seq: MaxRecordSlots, Files: []RecordFile{
			{Ino: 5, Size: 1 << 33, Blocks: 9, Atime: Timespec{-1, 2}, Mtime: Timespec{3, 999999999}, Ctime: Timespec{5, 6},
				Ptrs: []RecordPtr{{0, 4, 0}, {11, 5, 0}, {1 << 30, 6, 0}}},
			{Ino: 6, Ptrs: []RecordPtr{{12, 7, 0}}}}}},
		{"summed pointers", Record{Epoch: 2, Seq: 3, Summed: true, Files: []RecordFile{
			{Ino: 5, Size: 1 << 20, Ptrs: []RecordPtr{{0, 4, 0xdeadbeef}, {11, 5, 1}}},
			{Ino: 6, Ptrs: []RecordPtr{{12, 7, 0}}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := make([]byte, 3072)
			n, err := EncodeRecord(b, &c.r)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.r.Size() {
				t.Fatalf("encoded %d bytes, Size says %d", n, c.r.Size())
			}
			got, err := DecodeRecord(b, c.r.Seq)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.r) {
				t.Fatalf("decoded %+v, want %+v", got, c.r)
			}
			if _, err := DecodeRecord(b, c.r.Seq+1); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("record decoded as another number: %v", err)
			}
			b[n-1] ^= 1
			if _, err := DecodeRecord(b, c.r.Seq); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("flipped bit: %v", err)
			}
		})
	}
}

func TestRecordRefusals(t *testing.T) {
	big := Record{Epoch: 1, Seq: 1, Files: []RecordFile{{Ino: 1, Ptrs: make([]RecordPtr, 200)}}}
	if _, err := EncodeRecord(make([]byte, 3072), &big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("200 pointers in 3 KiB: %v", err)
	}
	if _, err := EncodeRecord(make([]byte, 512), &Record{Epoch: 1}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("record number 0: %v", err)
	}
	if _, err := DecodeRecord(make([]byte, 512), 1); !errors.Is(err, ErrZeroed) {
		t.Fatalf("zeroed: %v", err)
	}
	e := make([]byte, EpochSize)
	if err := EncodeEpoch(e, 77); err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeEpoch(e); err != nil || got != 77 {
		t.Fatalf("epoch %d, %v", got, err)
	}
	e[9] ^= 1
	if _, err := DecodeEpoch(e); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("flipped epoch: %v", err)
	}
}

// TestRecordSizes pins the wire sizes: a record of one file and one block
// must fit a 512-byte sector (issue 33's sector-sized log pieces).
func TestRecordSizes(t *testing.T) {
	r := Record{Epoch: 1, Seq: 1, Files: []RecordFile{{Ino: 1, Ptrs: []RecordPtr{{0, 1, 0}}}}}
	if got := r.Size(); got != 112 {
		t.Fatalf("one file, one pointer: %d bytes, want 112", got)
	}
	r.Summed = true
	if got := r.Size(); got != 116 {
		t.Fatalf("summed, one file, one pointer: %d bytes, want 116", got)
	}
	if RecordHeaderSize != 32 || RecordFileSize != 64 || RecordPtrSize != 16 || RecordSummedPtrSize != 20 || EpochSize != 20 {
		t.Fatal("record wire sizes changed")
	}
}
