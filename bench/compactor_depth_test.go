package bench

import (
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestIdleEmptyDepth measures why bench idle's empty-disk reference for
// vlfs is depth-matched (idle_vlfs_depth.go): a file of 1 % of the volume
// from block 0 sits under the inode's single indirect block, while the
// 80 % file's blocks are mostly under the double indirect one, so an update
// there writes one more indirect block.
// Here the same random fsync'd 4 KiB updates, with no idle time, go to a
// 1 %-sized range of blocks on an empty file system, once under the single
// and once under the double indirect block. The deeper range must write
// more blocks per update (what the test asserts); the latencies and device
// requests are logged for the issue-7 note. Blocks, not requests: since
// write gathering a commit's blocks usually reach the device as one
// request, so the request count no longer shows the extra indirect block.
// File-system version 2: under version 3 an update commits its data and a
// log record at any depth (2.03 and 2.04 blocks per update here), so the
// difference this measures is version 2's.
func TestIdleEmptyDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement")
	}
	for _, name := range []string{"st19101", "hp97560"} {
		m, err := disk.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		var blocks [2]float64
		for depth, base := range []int64{12, 12 + 512} { // first block under the single, double indirect
			p := emptyDepthPoint(t, m, base)
			blocks[depth] = p.blocks
			t.Logf("%s: empty file system, updates under the %s indirect block: %.3f ms simulated per update, %.2f blocks and %.2f requests per update",
				name, []string{"single", "double"}[depth], p.ms, p.blocks, p.reqs)
		}
		// One more indirect block per update, less what commits share.
		if blocks[1] < blocks[0]+0.5 {
			t.Errorf("%s: %.2f blocks written per update under the double indirect block, %.2f under the single", name, blocks[1], blocks[0])
		}
	}
}

// emptyDepthPoint writes a file of base+n blocks (n: 1 % of a 128 MiB
// volume) and updates blocks [base, base+n) at random, 2048 times after
// 2048 of warm-up; it returns the per-update means.
func emptyDepthPoint(t *testing.T, m *disk.Model, base int64) depthPoint {
	dev := device.NewMem(128 << 20)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Version: ondisk.FSVersionNodeMap}); err != nil {
		t.Fatal(err)
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	st, err := fs.StatFS()
	if err != nil {
		t.Fatal(err)
	}
	n := int64(st.Blocks) / 100
	a, err := fs.Create(vlfs.RootIno, "f", 0o644, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Write(a.Ino, 0, make([]byte, (base+n)*4096)); err != nil {
		t.Fatal(err)
	}
	if err := fs.Sync(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	tgt := fs.CompactTarget()
	const updates = 2048
	var t0 float64
	var w0, b0 int64
	for i := range 2 * updates {
		if i == updates {
			v := fs.Stats().Vol
			t0, w0, b0 = tgt.NowMs(), v.Writes, v.BlocksWritten
		}
		if err := vlfsUpdate(fs, a.Ino, base+rng.Int63n(n)); err != nil {
			t.Fatal(err)
		}
	}
	v := fs.Stats().Vol
	return depthPoint{
		ms:     (tgt.NowMs() - t0) / updates,
		blocks: float64(v.BlocksWritten-b0) / updates,
		reqs:   float64(v.Writes-w0) / updates,
	}
}

// depthPoint is one emptyDepthPoint measurement, per update: simulated
// ms, blocks written and device write requests.
type depthPoint struct{ ms, blocks, reqs float64 }
