package diskfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRoots builds a /sys/block, /proc and mountinfo tree in a temporary
// directory.
func fakeRoots(t *testing.T, loops map[string]string, fds map[string]string, mounts string) holderRoots {
	t.Helper()
	root := t.TempDir()
	r := holderRoots{sysBlock: filepath.Join(root, "sys"), proc: filepath.Join(root, "proc"), mountInfo: filepath.Join(root, "mountinfo")}
	for dev, backing := range loops {
		d := filepath.Join(r.sysBlock, dev, "loop")
		must(t, os.MkdirAll(d, 0o755))
		must(t, os.WriteFile(filepath.Join(d, "backing_file"), []byte(backing+"\n"), 0o644))
	}
	for pid, target := range fds {
		d := filepath.Join(r.proc, pid, "fd")
		must(t, os.MkdirAll(d, 0o755))
		must(t, os.Symlink(target, filepath.Join(d, "3")))
		must(t, os.WriteFile(filepath.Join(r.proc, pid, "comm"), []byte("fuse2fs\n"), 0o644))
	}
	must(t, os.WriteFile(r.mountInfo, []byte(mounts), 0o644))
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestHolders(t *testing.T) {
	const disk = "/srv/vld/disk"
	ext4 := "36 25 7:0 / /mnt/x rw,relatime shared:1 - ext4 /dev/loop0 rw\n"
	fuse2fs := "37 25 0:50 / /mnt/y rw - fuse.fuse2fs " + disk + " rw\n"
	cases := []struct {
		name   string
		loops  map[string]string
		fds    map[string]string
		mounts string
		want   []string // substrings, one per holder, in order
	}{
		{"nothing", map[string]string{"loop1": "/other/file"}, map[string]string{"9": "/other/file"}, ext4, nil},
		{"loop and ext4", map[string]string{"loop0": disk}, nil, ext4,
			[]string{"ext4 mounted on /mnt/x through /dev/loop0", "loop device /dev/loop0"}},
		{"deleted backing file", map[string]string{"loop0": disk + " (deleted)"}, nil, "", []string{"loop device /dev/loop0"}},
		{"fuse2fs", nil, map[string]string{"42": disk}, fuse2fs,
			[]string{"fuse.fuse2fs mounted on /mnt/y from " + disk, "process 42 (fuse2fs)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := fakeRoots(t, c.loops, c.fds, c.mounts)
			hs, err := r.holders(disk)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != len(c.want) {
				t.Fatalf("holders %v, want %d", hs, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(hs[i].What, w) || hs[i].Fix == "" {
					t.Errorf("holder %d = %+v, want %q and a fix", i, hs[i], w)
				}
			}
		})
	}
}
