package vlfs

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// dirState is a loaded directory: a map for lookups plus, per directory
// block, the names it holds, so that a change rewrites only its block.
type dirState struct {
	ents   map[string]dirEnt
	blocks []*dirBlock
	room   []uint32 // blocks that may have free space (each at most once)
	ndirty int      // dirty blocks
}

// dirEnt is one entry: the inode, its type and the block holding it.
type dirEnt struct {
	ino Ino
	typ uint8 // mode >> 12
	blk uint32
}

type dirBlock struct {
	names  []string
	used   int // bytes of entries
	dirty  bool
	inRoom bool
}

// dirLocked returns the loaded directory state of in (a directory).
func (fs *FS) dirLocked(in *inode) (*dirState, error) {
	if in.dir != nil {
		return in.dir, nil
	}
	if !in.isDir() {
		return nil, fmt.Errorf("inode %d: %w", in.ino, ErrNotDir)
	}
	nb := in.d.Size / uint64(fs.geo.bs)
	if in.d.Size%uint64(fs.geo.bs) != 0 || nb > 1<<31 {
		return nil, fmt.Errorf("directory %d: size %d: %w", in.ino, in.d.Size, ErrCorrupt)
	}
	if fs.loads != nil {
		return nil, fs.loads.needDir(fs, in, nb)
	}
	ds := &dirState{ents: map[string]dirEnt{}}
	buf := make([]byte, fs.geo.bs)
	for i := uint64(0); i < nb; i++ {
		if err := fs.loadDirBlockLocked(in, ds, uint32(i), buf); err != nil {
			return nil, err
		}
	}
	in.dir = ds
	return ds, nil
}

func (fs *FS) loadDirBlockLocked(in *inode, ds *dirState, i uint32, buf []byte) error {
	a, sum, err := fs.bmapSumLocked(in, uint64(i))
	if err != nil {
		return err
	}
	if a == 0 {
		ds.blocks = append(ds.blocks, &dirBlock{})
		return fmt.Errorf("directory %d: block %d is a hole: %w", in.ino, i, ErrCorrupt)
	}
	if err := fs.vol.ReadBlock(a, buf); err != nil {
		ds.blocks = append(ds.blocks, &dirBlock{})
		return fmt.Errorf("directory %d: reading block %d at %d: %w", in.ino, i, a, err)
	}
	if err := fs.verifyBlock(in.ino, uint64(i), a, sum, buf); err != nil {
		ds.blocks = append(ds.blocks, &dirBlock{})
		return err
	}
	return fs.decodeDirBlock(in, ds, i, buf)
}

// decodeDirBlock adds directory block i of in, read into buf, to ds.
func (fs *FS) decodeDirBlock(in *inode, ds *dirState, i uint32, buf []byte) error {
	db := &dirBlock{}
	ds.blocks = append(ds.blocks, db)
	err := ondisk.DecodeDir(buf, uint64(in.ino), func(e ondisk.DirEntry) error {
		if _, dup := ds.ents[e.Name]; dup {
			return fmt.Errorf("directory %d: name %q twice", in.ino, e.Name)
		}
		ds.ents[e.Name] = dirEnt{ino: Ino(e.Ino), typ: e.Type, blk: i}
		db.names = append(db.names, e.Name)
		db.used += ondisk.DirEntrySize(len(e.Name))
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: %w", err, ErrCorrupt)
	}
	if db.used < ondisk.DirCapacity(fs.geo.bs)*3/4 {
		db.inRoom = true
		ds.room = append(ds.room, i)
	}
	return nil
}

// dirAddLocked adds name -> ino to directory in.
func (fs *FS) dirAddLocked(in *inode, name string, ino Ino, mode uint32) error {
	ds, err := fs.dirLocked(in)
	if err != nil {
		return err
	}
	size := ondisk.DirEntrySize(len(name))
	i, ok := ds.findRoom(size, ondisk.DirCapacity(fs.geo.bs))
	if !ok {
		i = uint32(len(ds.blocks))
		ds.blocks = append(ds.blocks, &dirBlock{})
		in.d.Size += uint64(fs.geo.bs)
		in.d.Blocks++
		in.changed()
	}
	db := ds.blocks[i]
	db.names = append(db.names, name)
	db.used += size
	ds.ents[name] = dirEnt{ino: ino, typ: uint8(mode >> 12), blk: i}
	fs.dirtyDirBlockLocked(in, db)
	return nil
}

// findRoom returns a block with size bytes free, dropping full candidates.
func (ds *dirState) findRoom(size, capacity int) (uint32, bool) {
	for len(ds.room) > 0 {
		i := ds.room[len(ds.room)-1]
		if int(i) < len(ds.blocks) && ds.blocks[i].used+size <= capacity {
			return i, true
		}
		if int(i) < len(ds.blocks) {
			ds.blocks[i].inRoom = false
		}
		ds.room = ds.room[:len(ds.room)-1]
	}
	if n := len(ds.blocks); n > 0 && ds.blocks[n-1].used+size <= capacity {
		return uint32(n - 1), true
	}
	return 0, false
}

// dirRemoveLocked removes name from directory in.
func (fs *FS) dirRemoveLocked(in *inode, name string) error {
	ds, err := fs.dirLocked(in)
	if err != nil {
		return err
	}
	e, ok := ds.ents[name]
	if !ok {
		return fmt.Errorf("%q in directory %d: %w", name, in.ino, ErrNotExist)
	}
	db := ds.blocks[e.blk]
	j := slices.Index(db.names, name)
	if j < 0 {
		return fmt.Errorf("directory %d: %q missing from its block: %w", in.ino, name, ErrCorrupt)
	}
	last := len(db.names) - 1
	db.names[j] = db.names[last]
	db.names = db.names[:last]
	db.used -= ondisk.DirEntrySize(len(name))
	delete(ds.ents, name)
	if !db.inRoom {
		db.inRoom = true
		ds.room = append(ds.room, e.blk)
	}
	fs.dirtyDirBlockLocked(in, db)
	return fs.trimDirLocked(in, ds)
}

// trimDirLocked frees the empty blocks at the end of a directory, so that
// a directory that shrinks gives its space back.
func (fs *FS) trimDirLocked(in *inode, ds *dirState) error {
	n := len(ds.blocks)
	for n > 0 && len(ds.blocks[n-1].names) == 0 {
		n--
	}
	if n == len(ds.blocks) {
		return nil
	}
	unmapped := uint64(0)
	for i := n; i < len(ds.blocks); i++ {
		a, err := fs.bmapLocked(in, uint64(i))
		if err != nil {
			return err
		}
		if a == 0 {
			unmapped++
		}
	}
	for _, db := range ds.blocks[n:] {
		if db.dirty {
			db.dirty = false
			ds.ndirty--
			fs.dirtyMeta--
		}
	}
	ds.blocks = ds.blocks[:n]
	in.d.Blocks -= unmapped
	in.d.Size = uint64(n) * uint64(fs.geo.bs)
	fs.touchLocked(in)
	return fs.truncateBlocksLocked(in, uint64(n))
}

// dirSetLocked points an existing name at another inode (rename over).
func (fs *FS) dirSetLocked(in *inode, name string, ino Ino, mode uint32) error {
	ds, err := fs.dirLocked(in)
	if err != nil {
		return err
	}
	e, ok := ds.ents[name]
	if !ok {
		return fmt.Errorf("%q in directory %d: %w", name, in.ino, ErrNotExist)
	}
	e.ino, e.typ = ino, uint8(mode>>12)
	ds.ents[name] = e
	fs.dirtyDirBlockLocked(in, ds.blocks[e.blk])
	return nil
}

func (fs *FS) dirtyDirBlockLocked(in *inode, db *dirBlock) {
	if !db.dirty {
		db.dirty = true
		in.dir.ndirty++
		fs.dirtyMeta++
	}
	fs.markDirtyLocked(in)
}

// encodeDirBlockLocked returns block i of ds as bytes.
func (fs *FS) encodeDirBlockLocked(in *inode, i int) ([]byte, error) {
	ds := in.dir
	db := ds.blocks[i]
	ents := make([]ondisk.DirEntry, len(db.names))
	for j, n := range db.names {
		e := ds.ents[n]
		ents[j] = ondisk.DirEntry{Name: n, Ino: uint64(e.ino), Type: e.typ}
	}
	b := make([]byte, fs.geo.bs)
	if err := ondisk.EncodeDir(b, uint64(in.ino), ents); err != nil {
		return nil, err
	}
	return b, nil
}
