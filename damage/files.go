package damage

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// tree is every regular file reachable from the root, by inode.
type tree struct {
	files map[vlfs.Ino]file
}

type file struct {
	path string
	size uint64
	sum  [sha256.Size]byte
	// eio: a read failed its data checksum (version 4): the file is
	// there, its damaged bytes read as EIO
	eio bool
}

// snapshot walks fs from the root and hashes every regular file.
func snapshot(fs *vlfs.FS) (*tree, error) {
	t := &tree{files: map[vlfs.Ino]file{}}
	seen := map[vlfs.Ino]bool{}
	var walk func(dir vlfs.Ino, path string) error
	walk = func(dir vlfs.Ino, path string) error {
		if seen[dir] {
			return fmt.Errorf("directory %s (inode %d) reached twice", path, dir)
		}
		seen[dir] = true
		ents, err := fs.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("reading directory %s: %w", path, err)
		}
		for _, e := range ents {
			if e.Name == "." || e.Name == ".." {
				continue
			}
			p := path + "/" + e.Name
			switch e.Mode & vondisk.ModeType {
			case vondisk.ModeDir:
				if err := walk(e.Ino, p); err != nil {
					return err
				}
			case vondisk.ModeReg:
				f, err := hashFile(fs, e.Ino, -1)
				if errors.Is(err, vlfs.ErrChecksum) {
					f, err = file{eio: true}, nil
				}
				if err != nil {
					return fmt.Errorf("reading %s: %w", p, err)
				}
				f.path = p
				t.files[e.Ino] = f
			}
		}
		return nil
	}
	return t, walk(vlfs.RootIno, "")
}

// hashFile hashes the first n bytes of ino (n < 0: all of it).
func hashFile(fs *vlfs.FS, ino vlfs.Ino, n int64) (file, error) {
	a, err := fs.GetAttr(ino)
	if err != nil {
		return file{}, err
	}
	size := int64(a.Size)
	if n >= 0 {
		size = min(size, n)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		k := min(int64(len(buf)), size-off)
		got, err := fs.Read(ino, off, buf[:k])
		if err != nil {
			return file{}, fmt.Errorf("at %d: %w", off, err)
		}
		if got == 0 {
			return file{}, fmt.Errorf("at %d: %w", off, io.ErrUnexpectedEOF)
		}
		h.Write(buf[:got])
		off += int64(got)
	}
	f := file{size: uint64(size)}
	h.Sum(f.sum[:0])
	return f, nil
}

// compare checks after against before: a file the damaged block did not
// hold (hits) has its bytes, wherever it is; one it held is gone, a
// prefix of its bytes (checked against base, the undamaged image), or
// reads EIO where its data failed its checksum.
func compare(before, after *tree, base *vlfs.FS, hits []vlfs.Ino, fail func(string, ...any)) Files {
	var n Files
	hit := map[vlfs.Ino]bool{}
	for _, h := range hits {
		hit[h] = true
	}
	for ino, b := range before.files {
		a, ok := after.files[ino]
		switch {
		case !ok && hit[ino]:
			n.Lost++
		case !ok:
			fail("%s (inode %d): not reachable after the repair, though the damaged block did not hold it", b.path, ino)
		case a.eio && hit[ino]:
			n.Unreadable++
		case a.eio:
			fail("%s (inode %d): reads EIO after the repair, though the damaged block did not hold it", b.path, ino)
		case a.size == b.size && a.sum == b.sum && a.path == b.path:
			n.Intact++
		case a.size == b.size && a.sum == b.sum:
			n.Moved++
		case !hit[ino]:
			fail("%s (inode %d, now %s): %d bytes differ from its %d, though the damaged block did not hold it", b.path, ino, a.path, a.size, b.size)
		case a.size == b.size:
			fail("%s (inode %d, now %s): its %d bytes read back changed, with no error (wrong bytes)", b.path, ino, a.path, a.size)
		case a.size > b.size:
			fail("%s (inode %d): %d bytes after the repair, more than its %d", b.path, ino, a.size, b.size)
		default:
			p, err := hashFile(base, ino, int64(a.size))
			if err != nil || !bytes.Equal(p.sum[:], a.sum[:]) {
				fail("%s (inode %d): %d bytes after the repair that are not the start of its bytes (%v)", b.path, ino, a.size, err)
				continue
			}
			n.Truncated++
		}
	}
	return n
}
