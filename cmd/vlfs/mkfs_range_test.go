package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// TestMkfsRangePlacement: `vlfs mkfs --placement range` makes an image
// that mounts with that placement, keeps files across a remount and
// passes `vlfs fsck`; mount's --placement check accepts it.
func TestMkfsRangePlacement(t *testing.T) {
	img := filepath.Join(t.TempDir(), "range.img")
	var out, errb bytes.Buffer
	if code := run([]string{"mkfs", "--quiet", "--size", "64MiB", "--disk", "hpc2247a", "--placement", "range", img}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "placement range") {
		t.Fatalf("mkfs: exit %d: %s%s", code, out.String(), errb.String())
	}
	mount := func() *vlfs.FS {
		t.Helper()
		dev, err := device.OpenFile(img, device.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fsys, err := vlfs.Mount(dev, vlfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fsys
	}
	fsys := mount()
	if err := checkPlacement(&mountArgs{image: img, placement: "range"}, fsys); err != nil {
		t.Fatalf("own placement refused: %v", err)
	}
	want := map[string][]byte{}
	for i := range 8 {
		name := fmt.Sprintf("f%d", i)
		a, err := fsys.Create(vlfs.RootIno, name, 0o644, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte{byte(i + 1)}, 4096*(i+1)+17)
		for off := 0; off < len(data); off += 4096 { // appended and fsynced a block at a time
			if _, err := fsys.Write(a.Ino, int64(off), data[off:min(off+4096, len(data))]); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Fsync(a.Ino, false); err != nil {
				t.Fatal(err)
			}
		}
		want[name] = data
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"fsck", img}, &out, &errb); code != exitOK {
		t.Fatalf("fsck: exit %d: %s%s", code, out.String(), errb.String())
	}
	fsys = mount()
	defer fsys.Close()
	for name, data := range want {
		a, err := fsys.Lookup(vlfs.RootIno, name)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(data)+1)
		if n, err := fsys.Read(a.Ino, 0, got); err != nil || !bytes.Equal(got[:n], data) {
			t.Fatalf("%s: %d bytes, %v", name, n, err)
		}
	}
}
