package vlfs

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// seekModel is what Seek must answer: the file's size and the blocks it
// maps (written or reserved, not punched or truncated away).
type seekModel struct {
	size   uint64
	mapped map[uint64]bool
}

// want answers lseek(2) from the model, block by block.
func (m *seekModel) want(off uint64, data bool) (int64, bool) {
	const bs = 4096
	if off >= m.size {
		return 0, false
	}
	end := (m.size + bs - 1) / bs
	for lbn := off / bs; lbn < end; lbn++ {
		if m.mapped[lbn] == data {
			return int64(max(off, lbn*bs)), true
		}
	}
	if data {
		return 0, false
	}
	return int64(m.size), true
}

func checkSeek(t *testing.T, fs *FS, ino Ino, m *seekModel, off uint64, data bool, what string) {
	t.Helper()
	got, err := fs.Seek(ino, int64(off), data)
	want, ok := m.want(off, data)
	switch {
	case !ok && !errors.Is(err, ErrNoOffset):
		t.Fatalf("%s: Seek(%d, data=%v) = %d, %v; want ErrNoOffset", what, off, data, got, err)
	case ok && (err != nil || got != want):
		t.Fatalf("%s: Seek(%d, data=%v) = %d, %v; want %d", what, off, data, got, err, want)
	}
}

// TestSeekDataHole places data in the direct blocks, below the single and
// the double indirect roots, and past every written block, and checks
// SEEK_DATA and SEEK_HOLE from every interesting offset, buffered,
// committed and after a remount.
func TestSeekDataHole(t *testing.T) {
	const bs = 4096
	dind := uint64(ondisk.NumDirect + 512) // first block below the double-indirect root
	for _, v := range []uint32{0, ondisk.FSVersionAddr} {
		t.Run(fmt.Sprintf("version%d", v), func(t *testing.T) {
			im := mountImage(t, newFormattedVersion(t, 32<<20, v), Options{Logf: t.Logf})
			ino := must(im.fs.Create(RootIno, "sparse", 0o644, 0, 0)).ok(t).Ino
			m := &seekModel{mapped: map[uint64]bool{}}
			block := make([]byte, bs)
			for _, lbn := range []uint64{1, 2, 11, 12, 40, dind - 1, dind, dind + 513, dind + 2000} {
				block[0] = byte(lbn)
				must(im.fs.Write(ino, int64(lbn*bs), block)).ok(t)
				m.mapped[lbn] = true
			}
			size := (dind + 3000) * bs
			must(im.fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: size})).ok(t)
			m.size = size
			offsets := []uint64{0, 1, bs - 1, bs, 3 * bs, 3*bs + 7, 11 * bs, 12 * bs, 13 * bs,
				(dind - 2) * bs, (dind-1)*bs + 100, dind * bs, (dind + 1) * bs, (dind + 2001) * bs,
				size - 1, size, size + bs}
			check := func(what string) {
				t.Helper()
				for _, off := range offsets {
					checkSeek(t, im.fs, ino, m, off, true, what)
					checkSeek(t, im.fs, ino, m, off, false, what)
				}
			}
			check("buffered")
			must(0, im.fs.Fsync(ino, false)).ok(t)
			check("committed")
			im.remount()
			check("remounted")
			// Punch a mapped block out, reserve one in a hole.
			if err := im.fs.Fallocate(ino, FallocPunchHole|FallocKeepSize, int64(dind*bs), bs); err != nil {
				t.Fatal(err)
			}
			delete(m.mapped, dind)
			if err := im.fs.Fallocate(ino, FallocKeepSize, int64(5*bs), bs); err != nil {
				t.Fatal(err)
			}
			m.mapped[5] = true
			check("punched and reserved")
			must(0, im.fs.Fsync(ino, false)).ok(t)
			im.remount()
			check("punched and reserved, remounted")
		})
	}
}

// TestSeekErrors: directories, negative offsets and empty files.
func TestSeekErrors(t *testing.T) {
	im := newImage(t, 16<<20)
	ino := must(im.fs.Create(RootIno, "empty", 0o644, 0, 0)).ok(t).Ino
	for _, c := range []struct {
		name string
		ino  Ino
		off  int64
		data bool
		want error
	}{
		{"empty file, data", ino, 0, true, ErrNoOffset},
		{"empty file, hole", ino, 0, false, ErrNoOffset},
		{"negative offset", ino, -1, true, ErrInvalid},
		{"directory", RootIno, 0, true, ErrIsDir},
		{"no such inode", 999, 0, true, ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := im.fs.Seek(c.ino, c.off, c.data)
			wantErr(t, err, c.want)
		})
	}
}

// TestSeekRandom drives one sparse file with seeded random writes,
// punches, reservations, truncates, fsyncs and remounts, on tiny caches
// so that some blocks are committed and some only buffered, and compares
// every Seek with the model. Replay with -vlfs.seed.
func TestSeekRandom(t *testing.T) {
	const bs = 4096
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	rng := rand.New(rand.NewSource(seed))
	dind := uint64(ondisk.NumDirect + 512)
	// Blocks drawn from around the root boundaries, so that subtrees are
	// missing, partly full and loaded-but-unwritten.
	regions := [][2]uint64{{0, 16}, {500, 560}, {dind - 8, dind + 1100}}
	pick := func() uint64 {
		r := regions[rng.Intn(len(regions))]
		return r[0] + uint64(rng.Int63n(int64(r[1]-r[0])))
	}
	im := mountImage(t, newFormatted(t, 48<<20), Options{Logf: t.Logf})
	im.limits = &cacheLimits{inodes: 2, iblks: 1, nodes: 1, dirty: 3}
	im.fs.limits = *im.limits
	ino := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t).Ino
	m := &seekModel{mapped: map[uint64]bool{}}
	block := make([]byte, bs)
	steps := 400
	if testing.Short() {
		steps = 120
	}
	for step := range steps {
		what := fmt.Sprintf("seed %d step %d", seed, step)
		switch op := rng.Intn(10); {
		case op < 4:
			lbn := pick()
			lo := uint64(rng.Intn(bs))
			rng.Read(block[:bs-lo])
			must(im.fs.Write(ino, int64(lbn*bs+lo), block[:bs-lo])).ok(t)
			m.mapped[lbn] = true
			m.size = max(m.size, (lbn+1)*bs)
		case op == 4:
			lbn, n := pick(), uint64(1+rng.Intn(40))
			if err := im.fs.Fallocate(ino, FallocPunchHole|FallocKeepSize, int64(lbn*bs), int64(n*bs)); err != nil {
				t.Fatalf("%s: punch: %v", what, err)
			}
			for b := lbn; b < lbn+n; b++ {
				delete(m.mapped, b)
			}
		case op == 5:
			lbn := pick()
			if (lbn+1)*bs > m.size {
				continue
			}
			if err := im.fs.Fallocate(ino, FallocKeepSize, int64(lbn*bs), bs); err != nil {
				t.Fatalf("%s: fallocate: %v", what, err)
			}
			m.mapped[lbn] = true
		case op == 6:
			size := pick()*bs + uint64(rng.Intn(bs))
			must(im.fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: size})).ok(t)
			for b := range m.mapped {
				if b*bs >= size {
					delete(m.mapped, b)
				}
			}
			m.size = size
		case op == 7:
			must(0, im.fs.Fsync(ino, false)).ok(t)
		case op == 8 && rng.Intn(4) == 0:
			im.remount()
		}
		for range 6 {
			off := pick()*bs + uint64(rng.Intn(3))*uint64(rng.Intn(bs))
			if rng.Intn(8) == 0 && m.size > 0 {
				off = m.size - uint64(rng.Intn(2)) // the last byte, or the end
			}
			checkSeek(t, im.fs, ino, m, off, rng.Intn(2) == 0, what)
		}
	}
}
