package fstest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"golang.org/x/sys/unix"
)

// testReaddirWhileChanging adds and removes entries between getdents
// calls: no name is listed twice, every unchanged name exactly once
// (whether changed names show is unspecified), and after a rewind the
// listing is exactly the directory's new content.
func testReaddirWhileChanging(t *testing.T, dir string) {
	const n = 200
	for i := range n {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil)
	}
	f, err := os.Open(dir)
	mustDo(t, "open", err)
	defer f.Close()
	seen := map[string]int{}
	buf := make([]byte, 512) // a few entries per call
	more := func() bool {
		n, err := unix.Getdents(fd(f), buf)
		mustDo(t, "getdents", err)
		for _, name := range direntNames(buf[:n]) {
			seen[name]++
		}
		return n > 0
	}
	more()
	changed := map[string]bool{}
	for i := 0; i < n; i += 4 {
		name := fmt.Sprintf("f%03d", i)
		mustDo(t, "unlink", os.Remove(filepath.Join(dir, name)))
		changed[name] = true
	}
	for i := range 50 {
		name := fmt.Sprintf("g%03d", i)
		writeFile(t, filepath.Join(dir, name), nil)
		changed[name] = true
	}
	for more() {
	}
	for name, c := range seen {
		if c > 1 {
			t.Fatalf("%q listed %d times", name, c)
		}
	}
	for _, name := range append([]string{".", ".."}, fileNames(n)...) {
		if !changed[name] && seen[name] != 1 {
			t.Fatalf("unchanged %q listed %d times", name, seen[name])
		}
	}
	_, err = unix.Seek(fd(f), 0, 0)
	mustDo(t, "rewind", err)
	seen = map[string]int{}
	for more() {
	}
	var got []string
	for name, c := range seen {
		if c != 1 {
			t.Fatalf("after rewind %q listed %d times", name, c)
		}
		got = append(got, name)
	}
	sort.Strings(got)
	if want := append([]string{".", ".."}, names(t, dir)...); !equalStrings(got, want) || len(got) != 2+n-n/4+50 {
		t.Fatalf("after rewind: %d entries, want %d", len(got), 2+n-n/4+50)
	}
}

func fileNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("f%03d", i)
	}
	return out
}
