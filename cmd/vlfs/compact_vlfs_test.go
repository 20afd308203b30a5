package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// TestCompactVLFSImage compacts a fragmented vlfs image offline: tracks
// are emptied, the progress bar shows, and the image mounts clean with
// the same files.
func TestCompactVLFSImage(t *testing.T) {
	img := filepath.Join(t.TempDir(), "fs.img")
	dev, err := device.OpenFile(img, device.FileOptions{Create: true, Size: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := disk.Preset("st19101")
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m}); err != nil {
		t.Fatal(err)
	}
	fsys, err := vlfs.Mount(dev, vlfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range 200 {
		name := fmt.Sprintf("f%03d", i)
		a, err := fsys.Create(vlfs.RootIno, name, 0o644, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		data := strings.Repeat(name, 100+i*10)
		if _, err := fsys.Write(a.Ino, 0, []byte(data)); err != nil {
			t.Fatal(err)
		}
		want[name] = data
		if i%10 == 0 {
			if err := fsys.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 200; i += 2 {
		name := fmt.Sprintf("f%03d", i)
		if err := fsys.Unlink(vlfs.RootIno, name); err != nil {
			t.Fatal(err)
		}
		delete(want, name)
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	if code := run([]string{"compact", "--target", "1", "--json", img}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res compactResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("bad JSON %v: %s", err, out.String())
	}
	t.Logf("%+v", res)
	if res.BlocksMoved == 0 || res.EmptyAfter <= res.EmptyBefore {
		t.Fatalf("no compaction: %+v", res)
	}
	if !strings.Contains(errb.String(), "blocks moved") {
		t.Fatalf("no progress bar on stderr: %q", errb.String())
	}
	dev, err = device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err = vlfs.Mount(dev, vlfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if err := fsys.Check(); err != nil {
		t.Fatal(err)
	}
	for name, data := range want {
		a, err := fsys.Lookup(vlfs.RootIno, name)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(data)+1)
		n, err := fsys.Read(a.Ino, 0, buf)
		if err != nil || string(buf[:n]) != data {
			t.Fatalf("%s: %d bytes, %v: contents changed", name, n, err)
		}
	}
}
