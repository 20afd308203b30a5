package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// runDiskCLI runs one vlfs command line in-process.
func runDiskCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDiskCreate(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.img")
	if err := os.WriteFile(full, []byte("precious data"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		args      []string
		code      int
		out       string // substring of stdout (0) or stderr
		placement string // checked on the image when code is 0
	}{
		{"eager", []string{"--size", "32MiB", filepath.Join(dir, "e.img")}, exitOK, "placement eager", "eager"},
		{"inplace", []string{"--placement", "inplace", "--size", "32MiB", filepath.Join(dir, "i.img")}, exitOK, "placement inplace", "inplace"},
		{"flags after image", []string{filepath.Join(dir, "f.img"), "--size", "16MiB", "--disk", "hp97560"}, exitOK, "hp97560", "eager"},
		{"no size", []string{filepath.Join(dir, "x.img")}, exitUsage, "usage", ""},
		{"bad placement", []string{"--placement", "random", "--size", "32MiB", filepath.Join(dir, "x.img")}, exitUsage, "want eager, inplace or lfs", ""},
		{"range needs a file system", []string{"--placement", "range", "--size", "32MiB", filepath.Join(dir, "r.img")}, exitUsage, "range needs a file system", ""},
		{"bad disk", []string{"--disk", "nosuch", "--size", "32MiB", filepath.Join(dir, "x.img")}, exitUsage, "nosuch", ""},
		{"too small", []string{"--size", "1MiB", filepath.Join(dir, "x.img")}, exitUsage, "at least", ""},
		{"data without force", []string{"--size", "32MiB", full}, exitFailure, "--force", ""},
		{"data with force", []string{"--force", "--size", "32MiB", full}, exitOK, "created", "eager"},
		{"directory", []string{"--size", "32MiB", dir}, exitFailure, "is a directory", ""},
		{"sector pieces", []string{"--pieces", "sector", "--size", "32MiB", filepath.Join(dir, "s.img")}, exitOK, "64 blocks a map piece", "eager"},
		{"block pieces", []string{"--size", "32MiB", filepath.Join(dir, "b.img")}, exitOK, "768 blocks a map piece", "eager"},
		{"sector pieces need eager", []string{"--pieces", "sector", "--placement", "lfs", "--size", "32MiB", filepath.Join(dir, "x.img")}, exitUsage, "eager placement only", ""},
		{"bad pieces", []string{"--pieces", "page", "--size", "32MiB", filepath.Join(dir, "x.img")}, exitUsage, "want block or sector", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runDiskCLI(append([]string{"disk", "create"}, c.args...)...)
			text := errs
			if code == exitOK {
				text = out
			}
			if code != c.code || !strings.Contains(text, c.out) {
				t.Fatalf("exit %d, want %d; want %q in:\n%s%s", code, c.code, c.out, out, errs)
			}
			if c.placement != "" {
				img := c.args[len(c.args)-1]
				if c.name == "flags after image" {
					img = c.args[0]
				}
				checkDiskImage(t, img, c.placement)
			}
		})
	}
}

// checkDiskImage opens an image: a logical disk with the placement, closed
// cleanly, every block reading zeros.
func checkDiskImage(t *testing.T, img, placement string) {
	t.Helper()
	dev, err := device.OpenFile(img, device.FileOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d, err := logical.Open(dev, vld.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Volume().Close()
	if d.Placement().String() != placement || !d.Volume().Recovery().Clean {
		t.Fatalf("placement %v, clean %v; want %s, clean", d.Placement(), d.Volume().Recovery().Clean, placement)
	}
	buf := make([]byte, d.BlockSize())
	if err := d.Read(0, buf); err != nil || !bytes.Equal(buf, make([]byte, len(buf))) {
		t.Fatalf("block 0 of a new disk is not zeros (%v)", err)
	}
}

func TestDiskUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"disk"}, exitUsage, "usage: vlfs disk"},
		{[]string{"disk", "help"}, exitOK, "fuse2fs"},
		{[]string{"disk", "nosuch"}, exitUsage, "unknown subcommand"},
		{[]string{"disk", "serve", "only-one"}, exitUsage, "usage"},
		{[]string{"disk", "serve", "--clock", "sometimes", "a", "b"}, exitUsage, "want virtual or real"},
		{[]string{"disk", "serve", "--placement", "x", "a", "b"}, exitUsage, "want eager or inplace"},
		{[]string{"disk", "umount"}, exitUsage, "usage"},
	}
	for _, c := range cases {
		code, out, errs := runDiskCLI(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, want %d and %q in:\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

// TestDiskServeRefusals are the refusals that come before any mount.
func TestDiskServeRefusals(t *testing.T) {
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "d.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runDiskCLI("disk", "create", "--size", "16MiB", img); code != exitOK {
		t.Fatal(errs)
	}
	cases := []struct {
		name string
		args []string
		lock bool // hold the image as a running server would
		code int
		want string
	}{
		{"no image", []string{filepath.Join(dir, "none.img"), mnt}, false, exitFailure, "vlfs disk create"},
		{"no mount point", []string{img, filepath.Join(dir, "nodir")}, false, exitFailure, "mkdir -p"},
		{"placement mismatch", []string{"--placement", "inplace", img, mnt}, false, exitUsage, "created with --placement eager"},
		{"disk mismatch", []string{"--disk", "hp97560", img, mnt}, false, exitUsage, "simulates the st19101 disk"},
		{"second serve", []string{img, mnt}, true, exitFailure, "served only once"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.lock {
				dev, err := device.OpenFile(img, device.FileOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer dev.Close()
			}
			code, _, errs := runDiskCLI(append([]string{"disk", "serve"}, c.args...)...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, want %d and %q in: %s", code, c.code, c.want, errs)
			}
		})
	}
}

// TestDiskCreateForceKeepsLockedImage: --force on an image another process
// holds (a running server) is refused, and the image is left as it was. It
// used to be emptied before the lock was even tried.
func TestDiskCreateForceKeepsLockedImage(t *testing.T) {
	img := filepath.Join(t.TempDir(), "d.img")
	if code, _, errs := runDiskCLI("disk", "create", "--size", "16MiB", img); code != exitOK {
		t.Fatal(errs)
	}
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	code, _, errs := runDiskCLI("disk", "create", "--force", "--size", "16MiB", img)
	if code == exitOK {
		t.Fatal("disk create --force formatted an image in use")
	}
	after, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("refused (%q), but the image changed: %d bytes before, %d after", strings.TrimSpace(errs), len(before), len(after))
	}
}
