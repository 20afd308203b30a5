package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestScrubCLI damages one data block of /d/f on a version-4 image, mounts
// it and runs `vlfs scrub`: it must exit 4 naming /d/f and the damaged
// bytes, leave the other files alone, and the mount's checksum-error count
// must have grown; fsck names the same file offline.
func TestScrubCLI(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	img, inos := fsckImageFixture(t)
	fs := openFS(t, img, true)
	blocks, err := fs.MetaBlocks(true)
	fs.Close()
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	for _, b := range blocks {
		if b.Kind == vlfs.MetaData && b.Ino == inos["/d/f"] {
			addr = b.Addr // the last of its blocks
		}
	}
	if addr == 0 {
		t.Fatal("no data block of /d/f")
	}
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("damage"), int64(addr)*4096+100); err != nil {
		t.Fatal(err)
	}
	f.Close()

	if code, out, errs := runCLI(t, "fsck", img); code != exitUncorrect || !strings.Contains(out+errs, "/d/f: bytes ") {
		t.Fatalf("fsck of the damaged image: exit %d, want %d naming /d/f\n%s%s", code, exitUncorrect, out, errs)
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mount", "--background", "--compactor", "off", img, mnt)
	t.Cleanup(func() { fusefs.Unmount(mnt, true) })
	code, out, errs := runCLI(t, "scrub", "--json", mnt)
	var r scrubResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitUncorrect || r.ExitCode != exitUncorrect {
		t.Fatalf("scrub: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if len(r.Damaged) != 1 || r.Damaged[0].Path != filepath.Join(r.Mount, "d/f") || len(r.Damaged[0].Ranges) != 1 {
		t.Fatalf("scrub found %+v, want /d/f alone", r.Damaged)
	}
	if rg := r.Damaged[0].Ranges[0]; rg[1]-rg[0] != 4096 || rg[0]%4096 != 0 {
		t.Fatalf("damaged range %v, want one block", rg)
	}
	if r.Files != 3 || r.ChecksumErrorsAfter <= r.ChecksumErrorsBefore || len(r.Errors) != 0 {
		t.Fatalf("scrub: %d files, checksum errors %d -> %d, errors %v", r.Files, r.ChecksumErrorsBefore, r.ChecksumErrorsAfter, r.Errors)
	}
	for _, p := range []string{"/g", "/d/e/h"} {
		got, err := os.ReadFile(filepath.Join(mnt, p))
		if err != nil || string(got) != string(fsckContent(p)) {
			t.Fatalf("%s after the scrub: %v", p, err)
		}
	}
	mustRun(t, "umount", mnt)
}
