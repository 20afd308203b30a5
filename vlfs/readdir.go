package vlfs

// ReadDir lists dir: ".", "..", then every entry, in directory-block order.
func (fs *FS) ReadDir(dir Ino) ([]DirEntry, error) {
	fs.lock()
	defer fs.unlock()
	d, err := fs.dirInodeLocked(dir)
	if err != nil {
		fs.stats.count(opReadDir, 0)
		return nil, err
	}
	ds, err := fs.dirLocked(d)
	if err != nil {
		fs.stats.count(opReadDir, 0)
		return nil, err
	}
	out := make([]DirEntry, 0, len(ds.ents)+2)
	out = append(out, DirEntry{Name: ".", Ino: d.ino, Mode: typeOf(d.d.Mode)},
		DirEntry{Name: "..", Ino: Ino(d.d.Parent), Mode: typeOf(d.d.Mode)})
	for _, db := range ds.blocks {
		for _, n := range db.names {
			e := ds.ents[n]
			out = append(out, DirEntry{Name: n, Ino: e.ino, Mode: uint32(e.typ) << 12})
		}
	}
	fs.stats.count(opReadDir, len(out))
	return out, nil
}
