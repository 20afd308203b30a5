package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

func TestMkfsPlacement(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		place string
		code  int
		out   string
	}{
		{"inplace", exitOK, "placement inplace"},
		{"lfs", exitOK, "placement lfs"},
		{"random", exitUsage, "want eager, inplace, lfs or range"},
	} {
		t.Run(tc.place, func(t *testing.T) {
			img := filepath.Join(dir, tc.place+".img")
			var out, errb bytes.Buffer
			code := run([]string{"mkfs", "--quiet", "--size", "64MiB", "--placement", tc.place, img}, &out, &errb)
			if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.out) {
				t.Fatalf("exit %d (want %d): %s%s", code, tc.code, out.String(), errb.String())
			}
			if code != exitOK {
				return
			}
			dev, err := device.OpenFile(img, device.FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fsys, err := vlfs.Mount(dev, vlfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			if err := checkPlacement(&mountArgs{image: img, placement: tc.place}, fsys); err != nil {
				t.Fatalf("own placement refused: %v", err)
			}
			err = checkPlacement(&mountArgs{image: img, placement: "eager"}, fsys)
			if err == nil || !strings.Contains(err.Error(), "created with --placement "+tc.place) {
				t.Fatalf("mismatch: %v", err)
			}
		})
	}
}
