package vlfs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

// appendResult is what reading one appended file back cost.
type appendResult struct {
	extents  int     // runs of consecutive addresses in the file's block map
	reads    int64   // device read requests of the read-back
	readMs   float64 // simulated time of the read-back
	appendMs float64 // simulated time of the appends (writes and commits)
}

// appendInterleaved makes a file system with placement p on the HP
// C2247A, appends two files in alternating chunks of chunk blocks, each
// chunk fsynced after a random think time (two logging applications),
// remounts, and reads the first file back in order.
func appendInterleaved(t *testing.T, p vld.Placement, chunks, chunk int) appendResult {
	t.Helper()
	m, err := disk.Preset("hpc2247a")
	if err != nil {
		t.Fatal(err)
	}
	dev := device.NewMem(64 << 20)
	if err := Mkfs(dev, MkfsOptions{Model: m, Placement: p}); err != nil {
		t.Fatal(err)
	}
	im := mountImage(t, dev, Options{Logf: t.Logf})
	rng := rand.New(rand.NewPCG(5, 6))
	var inos [2]Ino
	for f := range inos {
		inos[f] = must(im.fs.Create(RootIno, fmt.Sprintf("log%d", f), 0o644, 0, 0)).ok(t).Ino
	}
	if err := im.fs.Sync(); err != nil {
		t.Fatal(err)
	}
	bs := im.fs.geo.bs
	before := im.fs.Stats().Vol.Sim.Total()
	for c := range chunks {
		for f, ino := range inos {
			im.fs.CompactTarget().Idle(rng.Float64() * 12) // think time, up to about a revolution
			data := bytes.Repeat([]byte{byte(c*2 + f + 1)}, chunk*bs)
			if _, err := im.fs.Write(ino, int64(c*chunk*bs), data); err != nil {
				t.Fatal(err)
			}
			if err := im.fs.Fsync(ino, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	var r appendResult
	r.appendMs = im.fs.Stats().Vol.Sim.Total() - before
	im.remount()
	im.fs.lock()
	in, err := im.fs.fileLocked(inos[0])
	if err != nil {
		im.fs.unlock()
		t.Fatal(err)
	}
	var prev uint64
	for lbn := range uint64(chunks * chunk) {
		a, err := im.fs.bmapLocked(in, lbn)
		if err != nil || a == 0 {
			im.fs.unlock()
			t.Fatalf("block %d: %d, %v", lbn, a, err)
		}
		if a != prev+1 {
			r.extents++
		}
		prev = a
	}
	im.fs.unlock()
	st := im.fs.Stats().Vol
	buf := make([]byte, chunks*chunk*bs)
	if n, err := im.fs.Read(inos[0], 0, buf); err != nil || n != len(buf) {
		t.Fatalf("read back %d bytes: %v", n, err)
	}
	for c := range chunks {
		if buf[c*chunk*bs] != byte(c*2+1) {
			t.Fatalf("chunk %d reads %d", c, buf[c*chunk*bs])
		}
	}
	after := im.fs.Stats().Vol
	r.reads, r.readMs = after.Reads-st.Reads, after.Sim.Total()-st.Sim.Total()
	return r
}

// TestRangePlacementFilesStaySequential: two files appended through vlfs
// in alternating fsynced chunks. With range placement the first file's
// blocks stay (nearly) consecutive and it reads back with far fewer
// requests and less simulated time than with eager placement.
func TestRangePlacementFilesStaySequential(t *testing.T) {
	const chunks, chunk = 24, 4
	eager := appendInterleaved(t, vld.PlaceEager, chunks, chunk)
	ranged := appendInterleaved(t, vld.PlaceRange, chunks, chunk)
	t.Logf("%d blocks appended in %d-block fsynced chunks: eager %d extents, read back in %d requests %.1f ms (appends %.1f ms); range %d extents, %d requests %.1f ms (appends %.1f ms) (simulated)",
		chunks*chunk, chunk, eager.extents, eager.reads, eager.readMs, eager.appendMs, ranged.extents, ranged.reads, ranged.readMs, ranged.appendMs)
	// Read time: range at most 2/3 of eager's. (It was at most half until
	// eager placement gathered each commit into one run (vld/gather.go),
	// which cut eager's read-back here from 276 to 255 ms; range's 130 ms
	// did not change. docs/ranges.md.)
	if ranged.extents*4 > eager.extents || ranged.reads*2 > eager.reads || ranged.readMs*3 > eager.readMs*2 {
		t.Fatalf("range placement %+v, eager %+v", ranged, eager)
	}
}

// TestRangePlacementRoundTrip: a volume made with range placement keeps
// small files, overwrites, deletes and a file longer than one write chunk
// across a remount, and checks clean (remount and cleanup run Check). The
// long file, written in one go, is one chain: its blocks are consecutive
// but for track-sized gaps (a few extents, not one per chunk or block).
func TestRangePlacementRoundTrip(t *testing.T) {
	dev := device.NewMem(64 << 20)
	if err := Mkfs(dev, MkfsOptions{Model: testModel(t), Placement: vld.PlaceRange}); err != nil {
		t.Fatal(err)
	}
	im := mountImage(t, dev, Options{Logf: t.Logf})
	if got := im.fs.Stats().Vol.Placement; got != "range" {
		t.Fatalf("placement %q", got)
	}
	want := map[string][]byte{}
	for i := range 12 {
		name := fmt.Sprintf("f%02d", i)
		ino := must(im.fs.Create(RootIno, name, 0o644, 0, 0)).ok(t).Ino
		data := bytes.Repeat([]byte{byte(i + 1)}, 4096*3+100)
		must(im.fs.Write(ino, 0, data)).ok(t)
		if err := im.fs.Fsync(ino, false); err != nil {
			t.Fatal(err)
		}
		patch := bytes.Repeat([]byte{0xee}, 4096)
		must(im.fs.Write(ino, 4096, patch)).ok(t)
		copy(data[4096:], patch)
		want[name] = data
	}
	for i := 0; i < 12; i += 4 {
		name := fmt.Sprintf("f%02d", i)
		if err := im.fs.Unlink(RootIno, name); err != nil {
			t.Fatal(err)
		}
		delete(want, name)
	}
	big := make([]byte, (writeChunk+300)*4096)
	for i := range big {
		big[i] = byte(i / 4096)
	}
	bigIno := must(im.fs.Create(RootIno, "big", 0o644, 0, 0)).ok(t).Ino
	must(im.fs.Write(bigIno, 0, big)).ok(t)
	want["big"] = big
	if err := im.fs.Sync(); err != nil {
		t.Fatal(err)
	}
	im.remount()
	for name, data := range want {
		ino := must(im.fs.Lookup(RootIno, name)).ok(t).Ino
		got := make([]byte, len(data)+10)
		if n, err := im.fs.Read(ino, 0, got); err != nil || !bytes.Equal(got[:n], data) {
			t.Fatalf("%s: read %d bytes, %v; contents differ", name, n, err)
		}
	}
	im.fs.lock()
	defer im.fs.unlock()
	in, err := im.fs.fileLocked(bigIno)
	if err != nil {
		t.Fatal(err)
	}
	jumps := 0
	var prev uint64
	for lbn := range uint64(len(big) / 4096) {
		a, err := im.fs.bmapLocked(in, lbn)
		if err != nil {
			t.Fatal(err)
		}
		if lbn > 0 && a != prev+1 {
			jumps++
		}
		prev = a
	}
	t.Logf("big file: %d blocks, %d discontinuities", len(big)/4096, jumps)
	if jumps > 2 {
		t.Errorf("big file written in one go has %d discontinuities in %d blocks", jumps, len(big)/4096)
	}
}
