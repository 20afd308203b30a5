package vlfs

import (
	"bytes"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// TestDamagedSuperblockMounts: a file system whose block 0 is flipped or
// zeroed mounts from a copy of the superblock, reads every file back,
// checks clean and, once mounted read-write, has block 0 whole again
// (issue 34: one flipped bit in block 0 made the image unmountable and
// unrepairable).
func TestDamagedSuperblockMounts(t *testing.T) {
	mem := newFormatted(t, 32<<20)
	fs, err := Mount(noClose{mem}, Options{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for i, n := range []int{1, 5000, 300 << 10} {
		name := string(rune('a' + i))
		b := bytes.Repeat([]byte{byte(i + 1)}, n)
		a := must(fs.Create(RootIno, name, 0o644, 0, 0)).ok(t)
		must(fs.Write(a.Ino, 0, b)).ok(t)
		want[name] = b
	}
	must(0, fs.Close()).ok(t)
	good := mem.Bytes()
	for name, hurt := range map[string]func([]byte){
		"flipped": func(b []byte) { b[200] ^= 0x10 },
		"zeroed":  func(b []byte) { clear(b[:4096]) },
	} {
		img := append([]byte(nil), good...)
		hurt(img)
		dev := device.MemFrom(img)
		fs, err := Mount(noClose{dev}, Options{FlushInterval: time.Hour})
		if err != nil {
			t.Fatalf("%s block 0: mount: %v", name, err)
		}
		if err := fs.Check(); err != nil {
			t.Fatalf("%s block 0: %v", name, err)
		}
		for f, b := range want {
			a := must(fs.Lookup(RootIno, f)).ok(t)
			got := make([]byte, len(b))
			if n := must(fs.Read(a.Ino, 0, got)).ok(t); n != len(b) || !bytes.Equal(got, b) {
				t.Fatalf("%s block 0: %s reads back wrong", name, f)
			}
		}
		must(0, fs.Close()).ok(t)
		if !bytes.Equal(dev.Bytes()[:4096], good[:4096]) {
			t.Fatalf("%s block 0: not written back from its copy", name)
		}
	}
}
