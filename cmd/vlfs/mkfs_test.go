package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true},
		{"512MiB", 512 << 20, true},
		{"1GiB", 1 << 30, true},
		{"4G", 4 << 30, true},
		{"4g", 4 << 30, true},
		{"4GB", 4e9, true},
		{"1.5GiB", 3 << 29, true},
		{"64 MiB", 64 << 20, true},
		{"10K", 10240, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"-1G", 0, false},
		{"12XB", 0, false},
		{"99999999T", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// runCLI runs one vlfs command line in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestMkfs(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.img")
	code, out, errs := runCLI(t, "mkfs", "--size", "64MiB", img)
	if code != exitOK || !strings.Contains(out, "vlfs mount "+img) {
		t.Fatalf("mkfs: exit %d\n%s%s", code, out, errs)
	}
	st, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || st.Size() != 64<<20 {
		t.Fatalf("image mode %v size %d, want 0600 and 64 MiB", st.Mode(), st.Size())
	}
	code, _, errs = runCLI(t, "mkfs", "--size", "64MiB", img)
	if code != exitFailure || !strings.Contains(errs, "--force") {
		t.Fatalf("mkfs over a formatted image: exit %d: %s", code, errs)
	}
	if code, _, errs = runCLI(t, "mkfs", "--force", "--size", "32MiB", "--quiet", img); code != exitOK {
		t.Fatalf("mkfs --force: exit %d: %s", code, errs)
	}
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "mkfs", data)
	if code != exitFailure || !strings.Contains(errs, "not a vlfs image") {
		t.Fatalf("mkfs over a data file: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(data); string(b) != "precious" {
		t.Fatal("mkfs damaged a file it refused to format")
	}
}

func TestMkfsUsage(t *testing.T) {
	img := filepath.Join(t.TempDir(), "x.img")
	for _, args := range [][]string{
		{"mkfs"},
		{"mkfs", img, "extra"},
		{"mkfs", "--size", "lots", img},
		{"mkfs", "--disk", "no-such-disk", img},
		{"mkfs", "--head", "guess", img},
		{"mkfs", "--head", "profile:/no/such/profile.json", img},
	} {
		if code, _, errs := runCLI(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, code, exitUsage, errs)
		}
	}
	if _, err := os.Stat(img); !os.IsNotExist(err) {
		t.Fatal("a refused mkfs left an image behind")
	}
}

// TestMkfsProfiledHead formats with the profiled head model and checks the
// image mounts and is clean: mkfs's own writes went where the profile said.
func TestMkfsProfiledHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.json")
	if code, _, errs := runCLI(t, "profile", "sim:st19101", "--out", p, "--size", "32MiB", "--skip-kib", "128", "--think-ms", "2", "--reps", "2", "--quiet"); code != exitOK {
		t.Fatalf("profile: %s", errs)
	}
	img := filepath.Join(dir, "a.img")
	if code, _, errs := runCLI(t, "mkfs", "--size", "32MiB", "--quiet", "--head", "profile:"+p, img); code != exitOK {
		t.Fatalf("mkfs --head: exit %d: %s", code, errs)
	}
	if code, out, errs := runCLI(t, "fsck", img); code != exitOK {
		t.Fatalf("fsck after mkfs --head: exit %d\n%s%s", code, out, errs)
	}
}

// TestMkfsKeepsFileSize formats existing files: without --size a file
// keeps its size (as with mke2fs), with it the file is resized.
func TestMkfsKeepsFileSize(t *testing.T) {
	tests := []struct {
		name string
		have int64
		args []string
		want int64
	}{
		{"existing file keeps its size", 96 << 20, nil, 96 << 20},
		{"--size resizes it", 96 << 20, []string{"--size", "64MiB"}, 64 << 20},
		// --sparse: a test need not write 1 GiB of zeros.
		{"empty file gets the default", 0, []string{"--sparse"}, 1 << 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "a.img")
			if err := os.WriteFile(img, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(img, tc.have); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"mkfs", "--quiet"}, tc.args...), img)
			if code, out, errs := runCLI(t, args...); code != exitOK {
				t.Fatalf("mkfs: exit %d\n%s%s", code, out, errs)
			}
			st, err := os.Stat(img)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() != tc.want {
				t.Fatalf("image size %d, want %d", st.Size(), tc.want)
			}
		})
	}
}

// TestMkfsFillsHoles: by default mkfs leaves no hole in an image file
// (internal/zerofill says why); --sparse leaves them.
func TestMkfsFillsHoles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		wantHoles bool
	}{
		{"default", nil, false},
		{"--sparse", []string{"--sparse"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "a.img")
			args := append(append([]string{"mkfs", "--quiet", "--size", "32MiB"}, tc.args...), img)
			if code, out, errs := runCLI(t, args...); code != exitOK {
				t.Fatalf("mkfs: exit %d\n%s%s", code, out, errs)
			}
			var st unix.Stat_t
			if err := unix.Stat(img, &st); err != nil {
				t.Fatal(err)
			}
			allocated := st.Blocks * 512
			t.Logf("%d of %d bytes allocated", allocated, st.Size)
			if holes := allocated < st.Size; holes != tc.wantHoles {
				t.Fatalf("%d of %d bytes allocated: holes %v, want %v", allocated, st.Size, holes, tc.wantHoles)
			}
		})
	}
}

// TestMkfsTooSmall: a size below 64 blocks is refused with the minimum
// named (it used to fail writing past the end of a 10-byte image, as
// "device: access out of range"), and nothing is left behind.
func TestMkfsTooSmall(t *testing.T) {
	img := filepath.Join(t.TempDir(), "x.img")
	for _, size := range []string{"10", "100KiB"} {
		code, _, errs := runCLI(t, "mkfs", "--size", size, img)
		if code != exitFailure || !strings.Contains(errs, "too small") && !strings.Contains(errs, "less than one track") {
			t.Errorf("--size %s: exit %d: %s", size, code, errs)
		}
		if strings.Contains(errs, "out of range") {
			t.Errorf("--size %s: %s", size, errs)
		}
		if _, err := os.Stat(img); !os.IsNotExist(err) {
			t.Fatalf("--size %s: a refused mkfs left an image behind", size)
		}
	}
}
