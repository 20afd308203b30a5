package damage

import (
	"errors"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// A block's identity across a change is what the file system names it
// by, not its address (the change moves it): a file's logical block, an
// inode block's number, the k-th indirect or directory block of an inode
// in MetaBlocks' order (which a change of contents does not reorder).

// fileBlock is the logical block of regular file ino held at device block
// addr. It walks the file's data extents (lseek's SEEK_DATA/SEEK_HOLE) and
// their device ranges, so a big sparse file costs its extents, not its size.
func fileBlock(fs *vlfs.FS, ino vlfs.Ino, addr uint64, bs int64) (int64, error) {
	a, err := fs.GetAttr(ino)
	if err != nil {
		return 0, err
	}
	size, want := int64(a.Size), int64(addr)*bs
	for off := int64(0); off < size; {
		d, err := fs.Seek(ino, off, true)
		if errors.Is(err, vlfs.ErrNoOffset) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("seeking data of inode %d from %d: %w", ino, off, err)
		}
		h, err := fs.Seek(ino, d, false)
		if err != nil {
			return 0, fmt.Errorf("seeking a hole of inode %d from %d: %w", ino, d, err)
		}
		// [d, h) has no hole: its device ranges are its blocks in order.
		for at := d; at < h; {
			rs, covered, err := fs.DeviceRanges(ino, at, h-at, 1024)
			if err != nil {
				return 0, fmt.Errorf("mapping inode %d at %d: %w", ino, at, err)
			}
			pos := at
			for _, r := range rs {
				if want >= r.Off && want < r.Off+r.Len {
					lbn := (pos + want - r.Off) / bs
					return lbn, checkBlockOf(fs, ino, lbn, bs, addr)
				}
				pos += r.Len
			}
			at = max(covered, at+1)
		}
		off = h
	}
	return 0, fmt.Errorf("%w: block %d is not among the data blocks of inode %d", ErrStale, addr, ino)
}

// checkBlockOf makes sure logical block lbn of ino is at addr (an extent
// with an unwritten block would throw fileBlock's count off).
func checkBlockOf(fs *vlfs.FS, ino vlfs.Ino, lbn, bs int64, addr uint64) error {
	got, err := blockOf(fs, ino, lbn, bs)
	if err == nil && got != addr {
		err = fmt.Errorf("%w: logical block %d of inode %d is at %d, not %d", ErrStale, lbn, ino, got, addr)
	}
	return err
}

// blockOf is the device block holding logical block lbn of file ino.
func blockOf(fs *vlfs.FS, ino vlfs.Ino, lbn, bs int64) (uint64, error) {
	rs, _, err := fs.DeviceRanges(ino, lbn*bs, bs, 1)
	if err != nil {
		return 0, fmt.Errorf("mapping inode %d at %d: %w", ino, lbn*bs, err)
	}
	if len(rs) == 0 {
		return 0, fmt.Errorf("%w: logical block %d of inode %d is a hole", ErrStale, lbn, ino)
	}
	return uint64(rs[0].Off / bs), nil
}

// nthMeta is the address of the k-th block of kind that inode ino owns,
// in MetaBlocks' order.
func nthMeta(fs *vlfs.FS, kind string, ino vlfs.Ino, k int) (uint64, error) {
	meta, err := fs.MetaBlocks(false)
	if err != nil {
		return 0, fmt.Errorf("listing the blocks: %w", err)
	}
	i := 0
	for _, m := range meta {
		if m.Kind == kind && m.Ino == ino {
			if i == k {
				return m.Addr, nil
			}
			i++
		}
	}
	return 0, fmt.Errorf("%w: inode %d has %d %s blocks, not %d", ErrStale, ino, i, kind, k+1)
}

// nodeAndBlockUnder is which of its inode's indirect blocks b is (k, in
// MetaBlocks' order) and a logical block under it: MetaBlocks lists a
// node before its subtree, so the first data block after it, of the same
// inode, is its (or, for a node with no data under it, a later node's; the
// change then leaves b as it was, and the case fails saying so). It lists
// the data blocks of every file: a stale indirect case costs one pass over
// the image's block trees.
func nodeAndBlockUnder(fs *vlfs.FS, b block, bs int64) (int, int64, error) {
	meta, err := fs.MetaBlocks(true)
	if err != nil {
		return 0, 0, fmt.Errorf("listing the blocks: %w", err)
	}
	at := slices.IndexFunc(meta, func(m vlfs.MetaBlock) bool { return m.Kind == vlfs.MetaIndirect && m.Addr == b.addr })
	if at < 0 {
		return 0, 0, fmt.Errorf("%w: block %d is not an indirect block of inode %d", ErrStale, b.addr, b.ino)
	}
	k := 0
	for _, m := range meta[:at] {
		if m.Kind == vlfs.MetaIndirect && m.Ino == b.ino {
			k++
		}
	}
	for _, m := range meta[at+1:] {
		if m.Ino != b.ino {
			break
		}
		if m.Kind == vlfs.MetaData {
			lbn, err := fileBlock(fs, b.ino, m.Addr, bs)
			return k, lbn, err
		}
	}
	return 0, 0, fmt.Errorf("%w: no data block after indirect block %d of inode %d", ErrStale, b.addr, b.ino)
}

// renameInBlock is the change of directory block b, which holds raw: the
// first entry it holds is renamed, in the same directory, to a free name of the same
// length, so that the block is written again without it.
func renameInBlock(fs *vlfs.FS, b block, raw []byte) (staleChange, error) {
	sc := staleChange{what: "a rename"}
	k, err := metaIndex(fs, vlfs.MetaDirectory, b)
	if err != nil {
		return sc, err
	}
	var first string
	err = vondisk.DecodeDir(raw, uint64(b.ino), func(e vondisk.DirEntry) error {
		if first == "" {
			first = e.Name
		}
		return nil
	})
	if err != nil {
		return sc, fmt.Errorf("decoding directory block %d: %w", b.addr, err)
	}
	if first == "" {
		return sc, fmt.Errorf("%w: directory block %d of inode %d holds no entry", ErrStale, b.addr, b.ino)
	}
	to, err := freeName(fs, b.ino, first)
	if err != nil {
		return sc, err
	}
	return staleChange{
		what:   fmt.Sprintf("a rename of %q to %q in directory inode %d", first, to, b.ino),
		change: func(fs *vlfs.FS) error { return fs.Rename(b.ino, first, b.ino, to, vlfs.RenameNoReplace) },
		locate: func(fs *vlfs.FS) (uint64, error) { return nthMeta(fs, vlfs.MetaDirectory, b.ino, k) },
	}, nil
}

// metaIndex is which of its inode's blocks of kind b is, in MetaBlocks'
// order.
func metaIndex(fs *vlfs.FS, kind string, b block) (int, error) {
	meta, err := fs.MetaBlocks(false)
	if err != nil {
		return 0, fmt.Errorf("listing the blocks: %w", err)
	}
	k := 0
	for _, m := range meta {
		if m.Kind != kind || m.Ino != b.ino {
			continue
		}
		if m.Addr == b.addr {
			return k, nil
		}
		k++
	}
	return 0, fmt.Errorf("%w: block %d is not a %s block of inode %d", ErrStale, b.addr, kind, b.ino)
}

// freeName is a name of name's length, not in directory dir: its last
// byte changed.
func freeName(fs *vlfs.FS, dir vlfs.Ino, name string) (string, error) {
	for _, c := range []byte("~_-=+0123456789abcdefghijklmnopqrstuvwxyz") {
		to := name[:len(name)-1] + string(c)
		if to == name {
			continue
		}
		if _, err := fs.Lookup(dir, to); errors.Is(err, vlfs.ErrNotExist) {
			return to, nil
		}
	}
	return "", fmt.Errorf("%w: no free name like %q in directory inode %d", ErrStale, name, dir)
}
