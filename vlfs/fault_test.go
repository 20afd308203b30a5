package vlfs

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// TestDeviceFaults fails device operation i, for every i, until a run
// completes without a fault. Every operation must return errors rather than
// panic, and the image left behind must mount, pass Check and hold a
// committed state no older than the last fsync that succeeded.
func TestDeviceFaults(t *testing.T) {
	for _, sticky := range []bool{false, true} {
		t.Run(fmt.Sprintf("sticky=%v", sticky), func(t *testing.T) { faultLoop(t, sticky) })
	}
}

func faultLoop(t *testing.T, sticky bool) {
	clean := newFormatted(t, 8<<20).Bytes()
	for i := 0; ; i++ {
		base := device.MemFrom(clean)
		dev := device.NewFaulty(noClose{base}, device.Fault{Op: device.OpAll, After: i, Sticky: sticky})
		snaps, acked := faultyWorkload(t, dev)
		if dev.Injected() == 0 {
			t.Logf("ran to completion after %d injected-fault runs (%d device operations)", i, dev.Count())
			return
		}
		fs, err := Mount(base, Options{FlushInterval: time.Hour})
		if err != nil {
			t.Fatalf("fault at op %d: mount of what was left: %v", i, err)
		}
		if err := fs.Check(); err != nil {
			t.Fatalf("fault at op %d: check: %v", i, err)
		}
		got := takeSnapshot(t, fs)
		ok := false
		for _, s := range snaps[acked:] {
			ok = ok || maps.Equal(got, s)
		}
		if !ok {
			t.Fatalf("fault at op %d: recovered %s, want a state from snapshot %d on", i, summary(got), acked)
		}
		if err := fs.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// faultyWorkload mounts dev and creates, writes, renames and fsyncs until
// the first error. It returns the snapshot before each fsync (index 0: the
// empty file system) and the index of the last one known durable.
func faultyWorkload(t *testing.T, dev device.Device) (snaps []snapshot, acked int) {
	snaps = []snapshot{{}}
	fs, err := Mount(dev, Options{FlushInterval: time.Hour})
	if err != nil {
		return snaps, 0
	}
	defer func() {
		// Close commits whatever is left: one more possible state.
		snaps = append(snaps, takeSnapshotQuiet(fs))
		fs.Close()
	}()
	for i := range 8 {
		a, err := fs.Create(RootIno, fmt.Sprintf("f%d", i), 0o644, 0, 0)
		if err != nil {
			return snaps, acked
		}
		if _, err := fs.Write(a.Ino, int64(i*3000), []byte(fmt.Sprintf("data %d", i))); err != nil {
			return snaps, acked
		}
		if i%3 == 2 {
			if err := fs.Rename(RootIno, fmt.Sprintf("f%d", i-1), RootIno, "renamed", 0); err != nil {
				return snaps, acked
			}
		}
		s := takeSnapshotQuiet(fs)
		if s["error"] != "" {
			return snaps, acked
		}
		snaps = append(snaps, s)
		if err := fs.Fsync(a.Ino, false); err != nil {
			return snaps, acked
		}
		acked = len(snaps) - 1
	}
	return snaps, acked
}

// takeSnapshotQuiet is takeSnapshot for a file system that may be failing:
// it never fails the test (a failed read gives an impossible snapshot).
func takeSnapshotQuiet(fs *FS) snapshot {
	s := snapshot{}
	ents, err := fs.ReadDir(RootIno)
	if err != nil {
		return snapshot{"error": err.Error()}
	}
	for _, e := range ents[2:] {
		a, err := fs.GetAttr(e.Ino)
		if err != nil {
			return snapshot{"error": err.Error()}
		}
		buf := make([]byte, a.Size)
		n, err := fs.Read(e.Ino, 0, buf)
		if err != nil {
			return snapshot{"error": err.Error()}
		}
		s["/"+e.Name] = contentKey(buf[:n])
	}
	return s
}
