package vlfs

// ReadDir lists dir: ".", "..", then every entry, in directory-block order.
func (fs *FS) ReadDir(dir Ino) ([]DirEntry, error) {
	var out []DirEntry
	err := fs.readOnlyOp(func() error {
		d, err := fs.dirInodeLocked(dir)
		if err != nil {
			return err
		}
		ds, err := fs.dirLocked(d)
		if err != nil {
			return err
		}
		out = make([]DirEntry, 0, len(ds.ents)+2)
		out = append(out, DirEntry{Name: ".", Ino: d.ino, Mode: typeOf(d.d.Mode)},
			DirEntry{Name: "..", Ino: Ino(d.d.Parent), Mode: typeOf(d.d.Mode)})
		for _, db := range ds.blocks {
			for _, n := range db.names {
				e := ds.ents[n]
				out = append(out, DirEntry{Name: n, Ino: e.ino, Mode: uint32(e.typ) << 12})
			}
		}
		return nil
	})
	fs.stats.count(opReadDir, len(out))
	if err != nil {
		return nil, err
	}
	return out, nil
}
