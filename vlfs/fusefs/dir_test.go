package fusefs

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/vlfs/vlfs/vlfs"
)

func TestDirentWindow(t *testing.T) {
	var ents []vlfs.DirEntry
	for i := range 50 {
		ents = append(ents, vlfs.DirEntry{Name: fmt.Sprintf("name-%d%s", i, string(make([]byte, i%9))), Ino: vlfs.Ino(i + 2), Mode: syscall.S_IFREG})
	}
	data, ends := encodeDir(ents)
	for _, size := range []int{40, 100, 333, 4096, len(data)} {
		var got []string
		off := int64(0)
		for {
			w, err := direntWindow(data, ends, off, size)
			if err != nil {
				t.Fatalf("size %d off %d: %v", size, off, err)
			}
			if len(w) == 0 {
				break
			}
			if len(w) > size {
				t.Fatalf("window of %d bytes for size %d", len(w), size)
			}
			for rest := w; len(rest) > 0; {
				name, next, ok := direntName(rest)
				if !ok {
					t.Fatalf("window cuts an entry (size %d off %d)", size, off)
				}
				got = append(got, name)
				rest = next
			}
			off += int64(len(w))
		}
		if len(got) != len(ents) {
			t.Fatalf("size %d: listed %d entries, want %d", size, len(got), len(ents))
		}
		for i, n := range got {
			if n != ents[i].Name {
				t.Fatalf("size %d: entry %d is %q, want %q", size, i, n, ents[i].Name)
			}
		}
	}
	if _, err := direntWindow(data, ends, 3, 4096); err != syscall.EINVAL {
		t.Fatalf("offset inside an entry: %v, want EINVAL", err)
	}
	if _, err := direntWindow(data, ends, int64(len(data))+1, 4096); err != syscall.EINVAL {
		t.Fatalf("offset past the end: %v, want EINVAL", err)
	}
	if w, err := direntWindow(nil, nil, 0, 4096); err != nil || len(w) != 0 {
		t.Fatalf("empty directory: %q %v", w, err)
	}
}
