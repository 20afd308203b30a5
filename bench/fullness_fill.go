package bench

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// filler fills a file system with files of mixed sizes, each written and
// fsync'd on its own, as an application saving its documents would. It
// keeps its place, so one filler takes a target from level to level.
type filler struct {
	dir   string
	rng   *rand.Rand
	buf   []byte // contents: random, so that nothing below can shrink them
	files int
	bytes int64
}

// filesPerDir bounds the fill's directories, so that no directory grows
// large enough for its own cost to show in the measurement.
const filesPerDir = 1000

func newFiller(dir string, seed int64) (*filler, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	f := &filler{dir: dir, rng: rand.New(rand.NewSource(seed)), buf: make([]byte, fullMaxFile)}
	f.rng.Read(f.buf)
	return f, nil
}

// size draws a file size between 1 B and fullMaxFile, log-uniform: as
// many files of 1-10 B as of 100-1000 KB, as on a disk people use.
func (f *filler) size() int64 {
	n := int64(math.Exp(f.rng.Float64() * math.Log(fullMaxFile)))
	return min(max(n, 1), fullMaxFile)
}

// to writes files until goal (a fraction) of the file system's capacity
// is in use as statfs reports it; the last file is cut to what is left,
// so the fill ends within a block or two of goal.
func (f *filler) to(goal float64, logf func(string, ...any)) error {
	last := time.Now()
	for {
		st, err := statFS(f.dir)
		if err != nil {
			return err
		}
		used := st.used()
		if used >= goal {
			return nil
		}
		if time.Since(last) > 2*time.Second {
			logf("fullness: filling to %.1f%%: %.1f%% used, %d files", goal*100, used*100, f.files)
			last = time.Now()
		}
		left := int64((goal - used) * float64(st.capacity()))
		n := min(f.size(), max(left, 1))
		sub := filepath.Join(f.dir, fmt.Sprintf("d%05d", f.files/filesPerDir))
		if f.files%filesPerDir == 0 {
			if err := os.Mkdir(sub, 0o755); err != nil {
				return err
			}
		}
		p := filepath.Join(sub, fmt.Sprintf("f%04d", f.files%filesPerDir))
		if err := writeFsync(p, f.buf[:n]); err != nil {
			return fmt.Errorf("filling to %.1f%% at %.1f%% used, file %d of %d bytes: %w", goal*100, used*100, f.files, n, err)
		}
		f.files++
		f.bytes += n
	}
}

// writeFsync creates (or truncates) the file at p, writes data, fsyncs
// and closes it.
func writeFsync(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fsSpace is what statfs says of a file system's blocks.
type fsSpace struct{ blocks, avail, bsize uint64 }

func statFS(dir string) (fsSpace, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fsSpace{}, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return fsSpace{blocks: st.Blocks, avail: st.Bavail, bsize: uint64(st.Bsize)}, nil
}

// used is the fraction of the blocks not available to an application
// (f_bavail): ext4 counts its reserved clusters, which no one may write,
// as free (f_bfree), and a fill that went by them ran out of space at
// 98 %. vlfs's f_bavail is its f_bfree.
func (s fsSpace) used() float64 {
	if s.blocks == 0 {
		return 0
	}
	return float64(s.blocks-min(s.avail, s.blocks)) / float64(s.blocks)
}

func (s fsSpace) capacity() int64 { return int64(s.blocks * s.bsize) }
