package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// fsckImageFixture makes a small image holding /d/f, /g and /d/e/h with
// known contents and returns its path and the inode numbers by path.
func fsckImageFixture(t *testing.T) (string, map[string]vlfs.Ino) {
	t.Helper()
	return fsckImageFixtureArgs(t)
}

// fsckImageFixtureArgs is fsckImageFixture with extra mkfs arguments.
func fsckImageFixtureArgs(t *testing.T, mkfs ...string) (string, map[string]vlfs.Ino) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "a.img")
	mustRun(t, append(append([]string{"mkfs", "--size", "16MiB"}, mkfs...), img)...)
	fs := openFS(t, img, false)
	inos := map[string]vlfs.Ino{}
	mk := func(dir vlfs.Ino, name, path string, isDir bool) vlfs.Ino {
		var a vlfs.Attr
		var err error
		if isDir {
			a, err = fs.Mkdir(dir, name, 0o755, 0, 0)
		} else {
			a, err = fs.Create(dir, name, 0o644, 0, 0)
			if err == nil {
				_, err = fs.Write(a.Ino, 0, fsckContent(path))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		inos[path] = a.Ino
		return a.Ino
	}
	d := mk(vlfs.RootIno, "d", "/d", true)
	mk(d, "f", "/d/f", false)
	mk(vlfs.RootIno, "g", "/g", false)
	mk(mk(d, "e", "/d/e", true), "h", "/d/e/h", false)
	if err := fs.Close(); err != nil {
		t.Fatal(err)
	}
	return img, inos
}

func fsckContent(path string) []byte { return bytes.Repeat([]byte(path), 3000) }

func openFS(t *testing.T, img string, ro bool) *vlfs.FS {
	t.Helper()
	dev, err := device.OpenFile(img, device.FileOptions{ReadOnly: ro})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{ReadOnly: ro})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestFsckRepairCLI damages an image with `vlfs inspect --damage`, one
// kind of damage per case: fsck must exit 4 and name the damage; fsck
// --repair must exit 1 (or 4 for damage it cannot fix, leaving the image
// as it was); then fsck must exit 0 and the files still reachable keep
// their bytes.
func TestFsckRepairCLI(t *testing.T) {
	tests := []struct {
		name    string
		surgery func(inos map[string]vlfs.Ino) []string
		kind    vlfs.FindingKind
		fixable bool
		// moved: paths expected elsewhere after the repair -> the path
		// whose inode number names the new place, and the new place
		moved map[string][2]string
	}{
		{"nlink", func(i map[string]vlfs.Ino) []string { return []string{"--set-nlink", fmt.Sprintf("%d:3", i["/g"])} }, vlfs.FindLinkCount, true, nil},
		{"blocks", func(i map[string]vlfs.Ino) []string { return []string{"--set-blocks", fmt.Sprintf("%d:40", i["/d/f"])} }, vlfs.FindBlockCount, true, nil},
		{"drop entry", func(i map[string]vlfs.Ino) []string {
			return []string{"--drop-entry", fmt.Sprintf("%d:g", vlfs.RootIno)}
		}, vlfs.FindUnreachable, true, map[string][2]string{"/g": {"/g", "/lost+found/#%d"}}},
		{"orphan directory", func(i map[string]vlfs.Ino) []string { return []string{"--orphan", fmt.Sprint(i["/d/e"])} }, vlfs.FindUnreachable, true,
			map[string][2]string{"/d/e/h": {"/d/e", "/lost+found/#%d/h"}}},
		{"leak block", func(map[string]vlfs.Ino) []string { return []string{"--leak-block"} }, vlfs.FindLeakedBlock, true, nil},
		{"leak node", func(i map[string]vlfs.Ino) []string { return []string{"--leak-node", fmt.Sprint(i["/g"])} }, vlfs.FindLeakedBlock, true, nil},
		{"parent", func(i map[string]vlfs.Ino) []string { return []string{"--set-parent", fmt.Sprintf("%d:1", i["/d/e"])} }, vlfs.FindParent, true, nil},
		{"shared block", func(i map[string]vlfs.Ino) []string {
			return []string{"--share-block", fmt.Sprintf("%d:%d", i["/g"], i["/d/f"])}
		}, vlfs.FindMount, false, nil},
		// The block's entries are lost: the file goes to lost+found, the
		// directory back into /d (its ".." names it) under its number.
		{"corrupt directory block", func(i map[string]vlfs.Ino) []string {
			return []string{"--corrupt", fmt.Sprintf("%d:100", i["dirblock"])}
		}, vlfs.FindUnreadable, true, map[string][2]string{"/d/f": {"/d/f", "/lost+found/#%d"}, "/d/e/h": {"/d/e", "/d/#%d/h"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, inos := fsckImageFixture(t)
			fs := openFS(t, img, true)
			rec, err := fs.InodeRecord(inos["/d"])
			fs.Close()
			if err != nil {
				t.Fatal(err)
			}
			inos["dirblock"] = vlfs.Ino(rec.Direct[0])
			mustRun(t, append(append([]string{"inspect", "--damage"}, tt.surgery(inos)...), img)...)
			if r := fsckJSON(t, exitUncorrect, img); !hasFinding(r.Findings, tt.kind) {
				t.Fatalf("fsck found %+v, want %q", r.Findings, tt.kind)
			}
			if !tt.fixable {
				if r := fsckJSON(t, exitUncorrect, "--repair", img); len(r.Fixed) != 0 {
					t.Fatalf("unfixable damage, yet fixed %q", r.Fixed)
				}
				return
			}
			if r := fsckJSON(t, exitCorrected, "--repair", img); len(r.Fixed) == 0 {
				t.Fatalf("repair fixed nothing: %+v", r)
			}
			fsckJSON(t, exitOK, img)
			checkContents(t, img, inos, tt.moved)
		})
	}
}

func fsckJSON(t *testing.T, wantCode int, args ...string) fsckResult {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"fsck", "--json"}, args...)...)
	var r fsckResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != wantCode || r.ExitCode != code {
		t.Fatalf("fsck %s: exit %d, want %d (%v)\n%s%s", strings.Join(args, " "), code, wantCode, err, out, errs)
	}
	return r
}

func hasFinding(fds []vlfs.Finding, k vlfs.FindingKind) bool {
	for _, f := range fds {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// checkContents reads every file at its path, or under /lost+found when
// repair moved it there (moved names the original path).
func checkContents(t *testing.T, img string, inos map[string]vlfs.Ino, moved map[string][2]string) {
	t.Helper()
	fs := openFS(t, img, true)
	defer fs.Close()
	for _, p := range []string{"/d/f", "/g", "/d/e/h"} {
		path := p
		if m, ok := moved[p]; ok {
			path = fmt.Sprintf(m[1], inos[m[0]])
		}
		got := readFile(t, fs, path)
		if !bytes.Equal(got, fsckContent(p)) {
			t.Errorf("%s (was %s): %d bytes, want %d", path, p, len(got), len(fsckContent(p)))
		}
	}
}

func readFile(t *testing.T, fs *vlfs.FS, path string) []byte {
	t.Helper()
	ino := vlfs.RootIno
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		a, err := fs.Lookup(ino, name)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		ino = a.Ino
	}
	a, err := fs.GetAttr(ino)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, a.Size)
	n, err := fs.Read(ino, 0, buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n]
}

// TestInspectViews prints every view of a fresh image.
func TestInspectViews(t *testing.T) {
	img, inos := fsckImageFixture(t)
	for _, args := range [][]string{{}, {"superblock"}, {"checkpoint"}, {"tail"}, {"imap"}, {"inode", fmt.Sprint(inos["/g"])}, {"dir", "1"}} {
		out := mustRun(t, append([]string{"inspect", "--json", img}, args...)...)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &m); err != nil || len(m) == 0 {
			t.Errorf("inspect %v: %v\n%s", args, err, out)
		}
		if len(args) > 0 && args[0] == "dir" && !strings.Contains(out, `"g"`) {
			t.Errorf("inspect dir 1 does not list g:\n%s", out)
		}
	}
	if code, _, errs := runCLI(t, "inspect", "--set-nlink", "2:5", img); code != exitUsage || !strings.Contains(errs, "--damage") {
		t.Errorf("surgery without --damage: exit %d: %s", code, errs)
	}
	fsckJSON(t, exitOK, img)
}

// TestFsckMissingImage names the missing path once (it said it three
// times: "cannot open X: open X: open X: no such file or directory").
func TestFsckMissingImage(t *testing.T) {
	img := filepath.Join(t.TempDir(), "none.img")
	code, out, errs := runCLI(t, "fsck", img)
	if msg := out + errs; code != exitFailure || strings.Count(msg, img) != 1 || !strings.Contains(msg, "no such file") {
		t.Fatalf("exit %d: %q", code, msg)
	}
}

// TestFsckJSONLists: every list in --json is [] when empty, never null.
func TestFsckJSONLists(t *testing.T) {
	img := filepath.Join(t.TempDir(), "a.img")
	if code, _, errs := runCLI(t, "mkfs", "--size", "16MiB", img); code != exitOK {
		t.Fatal(errs)
	}
	for _, args := range [][]string{{"fsck", "--json", img}, {"fsck", "--json", "--repair", img}} {
		_, out, _ := runCLI(t, args...)
		if strings.Contains(out, "null") {
			t.Errorf("%q: %s", args, out)
		}
	}
}

// TestFsckNotVLFS: what is not a vlfs image (random bytes, an empty file,
// a text file, a logical-disk volume, a directory) exits 8 and says what
// it is, with no advice to repair it (issue 34: it exited 4 and advised
// --repair, which then could not).
func TestFsckNotVLFS(t *testing.T) {
	dir := t.TempDir()
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(i*7919 + i/4096)
	}
	disk := filepath.Join(dir, "disk.img")
	if code, _, errs := runDiskCLI("disk", "create", "--size", "16MiB", disk); code != exitOK {
		t.Fatal(errs)
	}
	cases := []struct {
		name, path, want string
	}{
		{"random bytes", writeTestFile(t, dir, "random.img", random), "not a vlfs image"},
		{"empty file", writeTestFile(t, dir, "empty.img", nil), "not a vlfs image"},
		{"text", writeTestFile(t, dir, "README", []byte("# not an image\n")), "not a vlfs image"},
		{"logical disk", disk, "not a vlfs image"},
		{"directory", dir, "a directory"},
	}
	for _, c := range cases {
		for _, args := range [][]string{{"fsck", c.path}, {"fsck", "--repair", c.path}} {
			code, out, errs := runCLI(t, args...)
			msg := out + errs
			if code != exitFailure || !strings.Contains(msg, c.want) || strings.Contains(msg, "--repair") {
				t.Errorf("%s: %q: exit %d: %q", c.name, args, code, msg)
			}
		}
	}
}

func writeTestFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
