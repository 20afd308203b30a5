package diskfs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// TestNoPollRequests checks that opening the mount's files (which Go
// registers with epoll) sends no FUSE_POLL after the one made at mount
// time. An in-process FUSE_POLL can deadlock with the garbage collector and
// leave the test binary a zombie that nothing can kill (package fusepoll);
// before the fix this hung this package's tests (then vld/diskfs) until
// CI's limit.
func TestNoPollRequests(t *testing.T) {
	s := serveNew(t, vld.PlaceEager)
	// The kernel sends the mount-time FUSE_POLL on its own schedule: wait
	// for it (it once arrived after the check, failing the test at 0).
	n := s.srv.Report().FUSE["poll"].Count
	for deadline := time.Now().Add(2 * time.Second); n == 0 && time.Now().Before(deadline); n = s.srv.Report().FUSE["poll"].Count {
		time.Sleep(5 * time.Millisecond)
	}
	if n != 1 {
		t.Fatalf("%d FUSE_POLL requests right after mounting, want 1 (Mount switches them off)", n)
	}
	for i := range 5 {
		for _, name := range []string{DiskFile, StatsFile} {
			f, err := os.Open(filepath.Join(s.dir, name))
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			f.Close()
		}
	}
	if n := s.srv.Report().FUSE["poll"].Count; n != 1 {
		t.Fatalf("%d FUSE_POLL requests, want the 1 made at mount time", n)
	}
}
