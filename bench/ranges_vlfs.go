package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// Figure "vlfs" of `vlfs bench ranges`: issue 6 part 3, VLFS using
// ranges. Two files are appended through vlfs in alternating fsynced
// chunks (two logging applications, with a random think time of up to a
// revolution before each chunk), the file system is remounted, and the
// first file is read back in order. Eager placement scatters the file
// wherever the head was; range placement keeps it sequential, which shows
// as fewer device read requests and less simulated read time.

// rangesVLFSImage is the image size of figure "vlfs" (4 KiB blocks).
const rangesVLFSImage = 64 << 20

// rangesVLFSPoint is one row of figure "vlfs".
type rangesVLFSPoint struct {
	place  vld.Placement
	chunks int // fsynced appends per file
	chunk  int // blocks per append
}

func (c *RangesConfig) vlfsPoints() []rangesVLFSPoint {
	chunks := []int{1, 4, 16}
	n := 32
	if c.Quick {
		chunks, n = []int{4}, 16
	}
	var ps []rangesVLFSPoint
	for _, k := range chunks {
		for _, p := range []vld.Placement{vld.PlaceEager, vld.PlaceRange} {
			ps = append(ps, rangesVLFSPoint{place: p, chunks: max(n*4/k, 2), chunk: k})
		}
	}
	return ps
}

// runRangesVLFS runs one row of figure "vlfs".
func runRangesVLFS(m *disk.Model, p rangesVLFSPoint, seed uint64) (map[string]any, error) {
	fail := func(err error) (map[string]any, error) {
		return nil, fmt.Errorf("bench ranges: figure vlfs, %v placement: %w", p.place, err)
	}
	dev := device.NewMem(rangesVLFSImage)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Placement: p.place}); err != nil {
		return fail(err)
	}
	fs, err := vlfs.Mount(noClose{dev}, vlfs.Options{})
	if err != nil {
		return fail(err)
	}
	var inos [2]vlfs.Ino
	for f := range inos {
		a, err := fs.Create(vlfs.RootIno, fmt.Sprintf("log%d", f), 0o644, 0, 0)
		if err != nil {
			return fail(err)
		}
		inos[f] = a.Ino
	}
	if err := fs.Sync(); err != nil {
		return fail(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x76666c73))
	rev := 60000 / m.RPM
	const bs = 4096
	before := fs.Stats().Vol
	for c := range p.chunks {
		for f, ino := range inos {
			fs.CompactTarget().Idle(rng.Float64() * rev)
			data := bytes.Repeat([]byte{byte(c*2 + f + 1)}, p.chunk*bs)
			if _, err := fs.Write(ino, int64(c*p.chunk*bs), data); err != nil {
				return fail(err)
			}
			if err := fs.Fsync(ino, false); err != nil {
				return fail(err)
			}
		}
	}
	after := fs.Stats().Vol
	appendMs := (after.Sim.Total() - before.Sim.Total()) / float64(2*p.chunks)
	if err := fs.Close(); err != nil {
		return fail(err)
	}
	if fs, err = vlfs.Mount(noClose{dev}, vlfs.Options{}); err != nil {
		return fail(err)
	}
	defer fs.Close()
	before = fs.Stats().Vol
	buf := make([]byte, p.chunks*p.chunk*bs)
	if n, err := fs.Read(inos[0], 0, buf); err != nil || n != len(buf) {
		return fail(fmt.Errorf("read back %d of %d bytes: %v", n, len(buf), err))
	}
	for c := range p.chunks {
		if buf[c*p.chunk*bs] != byte(c*2+1) {
			return fail(fmt.Errorf("chunk %d reads back wrong", c))
		}
	}
	after = fs.Stats().Vol
	if err := fs.Check(); err != nil {
		return fail(err)
	}
	return map[string]any{
		"figure": "vlfs", "span": "disk", "placement": p.place.String(),
		"chunk_blocks": p.chunk, "file_blocks": p.chunks * p.chunk,
		"mean_ms":         appendMs, // per fsynced append: write and commit
		"read_requests":   after.Reads - before.Reads,
		"read_ms":         after.Sim.Total() - before.Sim.Total(),
		"read_locate_ms":  after.Sim.LocateMs - before.Sim.LocateMs,
		"blocks_per_read": float64(after.BlocksRead-before.BlocksRead) / float64(max(after.Reads-before.Reads, 1)),
	}, nil
}
