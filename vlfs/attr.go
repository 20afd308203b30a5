package vlfs

import "math"

// GetAttr returns the attributes of ino.
func (fs *FS) GetAttr(ino Ino) (Attr, error) {
	fs.stats.count(opGetAttr, 0)
	var a Attr
	err := fs.readOnlyOp(func() error {
		in, err := fs.getLocked(ino)
		if err == nil {
			a = fs.attrLocked(in)
		}
		return err
	})
	return a, err
}

// SetAttr changes the attributes named by s.Mask; SetSize truncates or
// extends. The change time is set to now unless SetCtime gives it.
func (fs *FS) SetAttr(ino Ino, s SetAttr) (Attr, error) {
	fs.stats.count(opSetAttr, 0)
	fs.warm([]Ino{ino})
	if err := fs.lockChange(); err != nil {
		fs.unlock()
		return Attr{}, err
	}
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return Attr{}, err
	}
	if s.Mask&SetSize != 0 {
		// Before the lookup below: the read releases FS.mu. What it read
		// is this call's only (run before the deferred unlock).
		fs.warmRangeLocked(ino, s.Size, math.MaxUint64)
		defer func() { fs.preread = fs.preread[:0] }()
	}
	in, err := fs.getLocked(ino)
	if err != nil {
		return Attr{}, err
	}
	if s.Mask&SetSize != 0 {
		if err := fs.setSizeLocked(in, s.Size); err != nil {
			return Attr{}, err
		}
	}
	fs.applyAttrLocked(in, s)
	return fs.attrLocked(in), nil
}

func (fs *FS) applyAttrLocked(in *inode, s SetAttr) {
	d := &in.d
	t := now()
	if s.Mask&SetMode != 0 {
		d.Mode = typeOf(d.Mode) | s.Mode&0o7777
	}
	if s.Mask&SetUid != 0 {
		d.Uid = s.Uid
	}
	if s.Mask&SetGid != 0 {
		d.Gid = s.Gid
	}
	switch {
	case s.Mask&SetAtimeNow != 0:
		d.Atime = t
	case s.Mask&SetAtime != 0:
		d.Atime = toTimespec(s.Atime)
	}
	switch {
	case s.Mask&SetMtimeNow != 0:
		d.Mtime = t
	case s.Mask&SetMtime != 0:
		d.Mtime = toTimespec(s.Mtime)
	}
	d.Ctime = t
	if s.Mask&SetCtime != 0 {
		d.Ctime = toTimespec(s.Ctime)
	}
	fs.touchLocked(in)
}
