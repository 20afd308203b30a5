package vlfs

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// FuzzMountCorrupt damages a small populated image (the fuzzer picks
// offsets and XOR masks) and mounts it: Mount must fail cleanly or give a
// file system whose Check and operations return errors, never panic.
func FuzzMountCorrupt(f *testing.F) {
	img := fuzzBaseImage(f)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x50, 0, 0xff})
	f.Add([]byte{0, 0x10, 0x30, 0, 0x01, 0, 0x20, 0x60, 0, 0x80})
	f.Fuzz(func(t *testing.T, damage []byte) {
		dev := device.MemFrom(img)
		size := uint32(len(img))
		for ; len(damage) >= 5; damage = damage[5:] {
			off := binary.LittleEndian.Uint32(damage) % size
			b := []byte{0}
			dev.ReadAt(b, int64(off))
			b[0] ^= damage[4]
			dev.WriteAt(b, int64(off))
		}
		fs, err := Mount(dev, Options{FlushInterval: time.Hour})
		if err != nil {
			return
		}
		defer fs.Close()
		_ = fs.Check()
		exercise(fs)
	})
}

// exercise runs a few operations over the whole tree, ignoring errors.
func exercise(fs *FS) {
	var walk func(ino Ino, depth int)
	walk = func(ino Ino, depth int) {
		ents, err := fs.ReadDir(ino)
		if err != nil || depth > 4 {
			return
		}
		for _, e := range ents[2:] {
			fs.GetAttr(e.Ino)
			fs.Read(e.Ino, 0, make([]byte, 9000))
			fs.Readlink(e.Ino)
			fs.Listxattr(e.Ino)
			fs.Write(e.Ino, 100, []byte("x"))
			walk(e.Ino, depth+1)
		}
		fs.Create(ino, "new", 0o644, 0, 0)
		for _, e := range ents[2:] {
			fs.Unlink(ino, e.Name)
			fs.Rmdir(ino, e.Name)
		}
	}
	walk(RootIno, 0)
	fs.Sync()
}

func fuzzBaseImage(f *testing.F) []byte {
	dev := device.NewMem(2 << 20)
	if err := Mkfs(dev, MkfsOptions{Model: testModel(f)}); err != nil {
		f.Fatal(err)
	}
	fs, err := Mount(noClose{dev}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	d, _ := fs.Mkdir(RootIno, "d", 0o755, 0, 0)
	for i := range 20 {
		a, err := fs.Create(d.Ino, fmt.Sprintf("f%d", i), 0o644, 0, 0)
		if err != nil {
			f.Fatal(err)
		}
		fs.Write(a.Ino, int64(i*4096), make([]byte, 100+i*700))
		fs.Setxattr(a.Ino, "user.i", []byte{byte(i)}, 0)
	}
	fs.Symlink(RootIno, "l", "d/f1", 0, 0)
	fs.Write(2, 60<<10, []byte("past the direct blocks"))
	if err := fs.Close(); err != nil {
		f.Fatal(err)
	}
	return dev.Bytes()
}
