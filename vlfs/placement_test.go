package vlfs

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// TestPlacements runs the same file workload on each placement: files
// written, overwritten and fsynced, some removed, then a remount; the
// contents must survive and Check must pass (cleanup). In place, an
// overwritten block must stay where it was.
func TestPlacements(t *testing.T) {
	for _, p := range []vld.Placement{vld.PlaceEager, vld.PlaceInPlace, vld.PlaceLFS} {
		t.Run(p.String(), func(t *testing.T) {
			dev := device.NewMem(64 << 20)
			if err := Mkfs(dev, MkfsOptions{Model: testModel(t), Placement: p}); err != nil {
				t.Fatal(err)
			}
			im := mountImage(t, dev, Options{Logf: t.Logf})
			want := map[string][]byte{}
			var inos []Ino
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("f%02d", i)
				a, err := im.fs.Create(RootIno, name, 0o644, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				data := bytes.Repeat([]byte{byte(i + 1)}, 4096*3+100)
				if _, err := im.fs.Write(a.Ino, 0, data); err != nil {
					t.Fatal(err)
				}
				if err := im.fs.Fsync(a.Ino, false); err != nil {
					t.Fatal(err)
				}
				want[name], inos = data, append(inos, a.Ino)
			}
			before, err := im.fs.InodeRecord(inos[3])
			if err != nil {
				t.Fatal(err)
			}
			for i, ino := range inos {
				patch := bytes.Repeat([]byte{0xee}, 4096)
				if _, err := im.fs.Write(ino, 4096, patch); err != nil {
					t.Fatal(err)
				}
				copy(want[fmt.Sprintf("f%02d", i)][4096:], patch)
				if err := im.fs.Fsync(ino, false); err != nil {
					t.Fatal(err)
				}
			}
			after, err := im.fs.InodeRecord(inos[3])
			if err != nil {
				t.Fatal(err)
			}
			moved := before.Direct[1] != after.Direct[1]
			if (p == vld.PlaceInPlace) == moved {
				t.Errorf("%v: overwritten block went from %d to %d", p, before.Direct[1], after.Direct[1])
			}
			for i := 0; i < 20; i += 3 {
				name := fmt.Sprintf("f%02d", i)
				if err := im.fs.Unlink(RootIno, name); err != nil {
					t.Fatal(err)
				}
				delete(want, name)
			}
			if err := im.fs.Sync(); err != nil {
				t.Fatal(err)
			}
			im.remount()
			for name, data := range want {
				a, err := im.fs.Lookup(RootIno, name)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(data)+10)
				n, err := im.fs.Read(a.Ino, 0, got)
				if err != nil || !bytes.Equal(got[:n], data) {
					t.Fatalf("%s: read %d bytes, %v; contents differ", name, n, err)
				}
			}
		})
	}
}
