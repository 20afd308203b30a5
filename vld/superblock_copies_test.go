package vld

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// TestSuperblockCopies: block 0 flipped, zeroed or filled with random
// bytes, alone or with one of its copies, still opens the volume with
// every committed piece and block (issue 34: one damaged block 0 lost the
// volume); a read-write open writes block 0 back; all three damaged
// refuses; an image made before copies (their blocks ordinary ones)
// opens as before, and its blocks there stay free for data.
func TestSuperblockCopies(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	data := [][]byte{bytes.Repeat([]byte{7}, v.BlockSize()), bytes.Repeat([]byte{9}, v.BlockSize())}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(map[uint32][]byte{3: []byte("piece three")}); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	img := dev.Bytes()
	bs := v.BlockSize()
	copies := superCopyAddrs(int64(len(img)), bs)
	if len(copies) != 2 || !bytes.Equal(img[:bs], img[int(copies[0])*bs:int(copies[0]+1)*bs]) || !bytes.Equal(img[:bs], img[int(copies[1])*bs:int(copies[1]+1)*bs]) {
		t.Fatalf("format wrote no copies of the superblock at %v", copies)
	}
	random := bytes.Repeat([]byte("not a superblock"), bs/16)
	damage := map[string]func(b []byte, a Addr) []byte{
		"flipped": func(b []byte, a Addr) []byte { return flip(b, int(a)*bs+100) },
		"zeroed":  func(b []byte, a Addr) []byte { return zeroBlocks(b, bs, int(a)) },
		"random": func(b []byte, a Addr) []byte {
			c := append([]byte(nil), b...)
			copy(c[int(a)*bs:], random)
			return c
		},
	}
	for name, hurt := range damage {
		for _, also := range []Addr{0, copies[0], copies[1]} {
			img2 := hurt(img, 0)
			if also != 0 {
				img2 = hurt(img2, also)
			}
			mem := device.MemFrom(img2)
			v2, err := Open(mem, Options{})
			if err != nil {
				t.Fatalf("%s block 0 (and block %d): %v", name, also, err)
			}
			if got := v2.Recovery().SuperblockCopy; got == 0 || got == also {
				t.Fatalf("%s block 0 (and block %d): opened from copy %d", name, also, got)
			}
			if got := v2.Pieces()[3]; !bytes.HasPrefix(got, []byte("piece three")) {
				t.Fatalf("%s: piece 3 reads %q", name, got[:min(len(got), 20)])
			}
			for i, a := range addrs {
				if err := v2.MarkLive(a); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, bs)
				if err := v2.ReadBlock(a, buf); err != nil || !bytes.Equal(buf, data[i]) {
					t.Fatalf("%s: block %d: %v", name, a, err)
				}
			}
			if err := v2.Start(); err != nil {
				t.Fatal(err)
			}
			if err := v2.Check(addrs); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := v2.Close(); err != nil {
				t.Fatal(err)
			}
			if b := mem.Bytes(); !bytes.Equal(b[:bs], img[:bs]) {
				t.Fatalf("%s: the read-write open did not write block 0 back", name)
			}
		}
	}
	if _, err := Open(device.MemFrom(damage["zeroed"](damage["zeroed"](damage["zeroed"](img, 0), copies[0]), copies[1])), Options{}); !errors.Is(err, ErrNotFormatted) {
		t.Fatalf("block 0 and both copies zeroed: %v", err)
	}
	// Before copies: their blocks are free for data.
	old := zeroBlocks(zeroBlocks(img, bs, int(copies[0])), bs, int(copies[1]))
	v3, err := Open(device.MemFrom(old), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v3.Close()
	if n := v3.Recovery().SuperblockCopies; n != 0 {
		t.Fatalf("an image without copies: %d found", n)
	}
	if v3.alloc.IsUsed(int64(copies[0])) {
		t.Fatal("on an image without copies the first copy's block is taken")
	}
	if ondisk.FixedBlocks >= copies[0] {
		t.Fatal("the copies overlap the fixed blocks")
	}
}
