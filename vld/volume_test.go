package vld

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

func TestFormatOpenRoundTrip(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 64<<20, Options{})
	data := [][]byte{block(v.BlockSize(), 1), block(v.BlockSize(), 2), block(v.BlockSize(), 3)}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte("piece seven")
	if err := v.Commit(map[uint32][]byte{7: payload, 9: []byte("nine")}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(addrs); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(keepOpen{dev}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !v2.Recovery().Clean {
		t.Errorf("clean close not recognised: %+v", v2.Recovery())
	}
	p := v2.Pieces()
	if !bytes.HasPrefix(p[7], payload) || !bytes.HasPrefix(p[9], []byte("nine")) || len(p) != 2 {
		t.Fatalf("pieces after reopen: %v", p)
	}
	for i, a := range addrs {
		if err := v2.MarkLive(a); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, v2.BlockSize())
		if err := v2.ReadBlock(a, buf); err != nil || !bytes.Equal(buf, data[i]) {
			t.Fatalf("block %d: %v", a, err)
		}
	}
	if err := v2.Start(); err != nil {
		t.Fatal(err)
	}
	if err := v2.Check(addrs); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRejectsBadImages(t *testing.T) {
	v, dev := newTestVolume(t, "st19101", 16<<20, Options{})
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	img := dev.Bytes()
	copies := superCopyAddrs(int64(len(img)), v.BlockSize())
	cases := []struct {
		name string
		img  []byte
		want error
	}{
		{"zeroed", make([]byte, 16<<20), ErrNotFormatted},
		{"foreign", append([]byte("\x7fELF"), make([]byte, 16<<20)...), ErrNotFormatted},
		{"tiny", make([]byte, 100), ErrNotFormatted},
		{"truncated", img[:8<<20], ErrCorrupt},
		// One flipped byte is read past with a copy (TestSuperblockCopies);
		// the same byte flipped in block 0 and both copies is not.
		{"flipped superblock byte and its copies", flip(flip(flip(img, 100), int(copies[0])*4096+100), int(copies[1])*4096+100), ErrCorrupt},
		{"both checkpoints gone", zeroBlocks(img, v.BlockSize(), 1, 2), ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(device.MemFrom(c.img), Options{})
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func flip(img []byte, off int) []byte {
	c := append([]byte(nil), img...)
	c[off] ^= 0xff
	return c
}

func zeroBlocks(img []byte, bs int, blocks ...int) []byte {
	c := append([]byte(nil), img...)
	for _, b := range blocks {
		clear(c[b*bs : (b+1)*bs])
	}
	return c
}

func TestFreeAndReuse(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 16<<20, Options{})
	bs := v.BlockSize()
	a, err := v.WriteBlocks([][]byte{block(bs, 1)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	if err := v.Free(a[0]); err != nil {
		t.Fatal(err)
	}
	if err := v.Free(a[0]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("double free before release: %v", err)
	}
	if err := v.Check(nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(map[uint32][]byte{0: {2}}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Free(a[0]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("double free after release: %v", err)
	}
}

func TestNoSpaceAndReserve(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 4<<20, Options{})
	bs := v.BlockSize()
	var live []Addr
	for {
		a, err := v.WriteBlocks([][]byte{block(bs, 5)}, WriteOpts{})
		if errors.Is(err, ErrNoSpace) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, a...)
	}
	if v.FreeBlocks() != 0 {
		t.Fatalf("data writes refused with %d free", v.FreeBlocks())
	}
	// Metadata can still be written and committed.
	m, err := v.WriteBlocks([][]byte{block(bs, 6)}, WriteOpts{Meta: true})
	if err != nil {
		t.Fatalf("meta write in reserve: %v", err)
	}
	live = append(live, m...)
	if err := v.Commit(map[uint32][]byte{1: {1}}); err != nil {
		t.Fatal(err)
	}
	// A write-commit of data is refused in the reserve; of metadata (a file
	// system's inode blocks) it is not, or a full disk could commit nothing.
	payload := func([]Addr) map[uint32][]byte { return map[uint32][]byte{2: {1}} }
	if _, err := v.WriteCommit([][]byte{block(bs, 8)}, []uint32{2}, payload); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("data write-commit in the reserve: %v", err)
	}
	wc, err := v.WriteCommitOpts([][]byte{block(bs, 9)}, WriteOpts{Meta: true}, []uint32{2}, payload)
	if err != nil {
		t.Fatalf("meta write-commit in the reserve: %v", err)
	}
	live = append(live, wc...)
	if err := v.Check(live); err != nil {
		t.Fatal(err)
	}
	for _, a := range live[:10] {
		if err := v.Free(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Commit(map[uint32][]byte{1: {2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.WriteBlocks([][]byte{block(bs, 7)}, WriteOpts{}); err != nil {
		t.Fatalf("write after freeing: %v", err)
	}
}

func TestFormatRejectsImageLargerThanDisk(t *testing.T) {
	m := testModel(t, "hp97560")
	dev, err := device.OpenFile(t.TempDir()+"/big.img", device.FileOptions{Create: true, Size: m.CapacityBytes() + 1<<20})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if err := Format(dev, FormatOptions{Model: m}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v", err)
	}
}

func TestReadBlocksMergesRuns(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 16<<20, Options{})
	bs := v.BlockSize()
	data := make([][]byte, 8)
	for i := range data {
		data[i] = block(bs, byte(i))
	}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	bufs := make([][]byte, len(addrs))
	for i := range bufs {
		bufs[i] = make([]byte, bs)
	}
	before := v.Stats().Reads
	if err := v.ReadBlocks(addrs, bufs); err != nil {
		t.Fatal(err)
	}
	for i := range bufs {
		if !bytes.Equal(bufs[i], data[i]) {
			t.Fatalf("block %d differs", i)
		}
	}
	runs := 1
	for i := 1; i < len(addrs); i++ {
		if addrs[i] != addrs[i-1]+1 || v.layout.TrackOf(int64(addrs[i])) != v.layout.TrackOf(int64(addrs[i-1])) {
			runs++
		}
	}
	if got := v.Stats().Reads - before; got != int64(runs) {
		t.Fatalf("%d read requests for %d runs", got, runs)
	}
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(addrs); err != nil {
		t.Fatal(err)
	}
}
