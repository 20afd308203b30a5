package vlfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Extended attributes of an inode live in one xattr block (all of them
// together must fit in one block).

// xattrNamespaces are the prefixes of the attribute names vlfs keeps: those
// of Linux file systems without POSIX ACLs. The kernel resolves namespaces
// only for file systems with xattr handlers; FUSE passes every name on, so
// the check is vlfs's.
var xattrNamespaces = []string{"security.", "trusted.", "user."}

// checkXattrName accepts what Linux file systems accept: a name in one of
// xattrNamespaces with at least one byte after the prefix (a bare prefix is
// ErrInvalid, EINVAL). Any other name, system.* (POSIX ACLs, which vlfs
// does not enforce) included, is ErrNotSupported (EOPNOTSUPP), so that
// nothing is stored that the kernel would not act on.
func checkXattrName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty attribute name: %w", ErrInvalid)
	case len(name) > ondisk.MaxXattrName:
		return fmt.Errorf("attribute name of %d bytes: %w", len(name), ErrXattrRange)
	}
	for _, ns := range xattrNamespaces {
		if rest, ok := strings.CutPrefix(name, ns); ok {
			if rest == "" {
				return fmt.Errorf("attribute name %q has only a namespace: %w", name, ErrInvalid)
			}
			return nil
		}
	}
	return fmt.Errorf("attribute %q: namespace not supported: %w", name, ErrNotSupported)
}

// xattrsLocked loads and returns in's attributes.
func (fs *FS) xattrsLocked(in *inode) (map[string][]byte, error) {
	if in.xattrs != nil {
		return in.xattrs, nil
	}
	m := map[string][]byte{}
	if in.d.Xattr != 0 {
		buf := make([]byte, fs.geo.bs)
		err := fs.vol.ReadBlock(in.d.Xattr, buf)
		if err == nil {
			err = fs.geo.verifyMeta(buf, in.d.XattrSum)
		}
		if err != nil {
			return nil, fmt.Errorf("inode %d: reading xattr block: %w", in.ino, err)
		}
		err = ondisk.DecodeXattrs(buf, uint64(in.ino), func(x ondisk.Xattr) error {
			m[x.Name] = x.Value
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrCorrupt)
		}
	}
	in.xattrs = m
	return m, nil
}

// Getxattr returns the value of attribute name (ErrNoXattr if absent).
func (fs *FS) Getxattr(ino Ino, name string) ([]byte, error) {
	fs.stats.count(opXattr, 0)
	if err := checkXattrName(name); err != nil {
		return nil, err
	}
	fs.lock()
	defer fs.unlock()
	m, err := fs.inodeXattrsLocked(ino)
	if err != nil {
		return nil, err
	}
	v, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("attribute %q of inode %d: %w", name, ino, ErrNoXattr)
	}
	return slices.Clone(v), nil
}

func (fs *FS) inodeXattrsLocked(ino Ino) (map[string][]byte, error) {
	in, err := fs.getLocked(ino)
	if err != nil {
		return nil, err
	}
	return fs.xattrsLocked(in)
}

// Setxattr sets attribute name; flags may be XattrCreate or XattrReplace.
func (fs *FS) Setxattr(ino Ino, name string, value []byte, flags uint32) error {
	fs.stats.count(opXattr, len(value))
	if err := checkXattrName(name); err != nil {
		return err
	}
	fs.warm([]Ino{ino})
	if flags&^(XattrCreate|XattrReplace) != 0 || flags == XattrCreate|XattrReplace {
		return fmt.Errorf("setxattr flags %#x: %w", flags, ErrInvalid)
	}
	if len(value) > 0xffff {
		return fmt.Errorf("attribute value of %d bytes: %w", len(value), ErrXattrRange)
	}
	return fs.retryNoSpace(func() error { return fs.setxattrLocked(ino, name, value, flags) })
}

func (fs *FS) setxattrLocked(ino Ino, name string, value []byte, flags uint32) error {
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	in, err := fs.getLocked(ino)
	if err != nil {
		return err
	}
	m, err := fs.xattrsLocked(in)
	if err != nil {
		return err
	}
	old, exists := m[name]
	switch {
	case exists && flags&XattrCreate != 0:
		return fmt.Errorf("attribute %q: %w", name, ErrExist)
	case !exists && flags&XattrReplace != 0:
		return fmt.Errorf("attribute %q: %w", name, ErrNoXattr)
	}
	total := ondisk.XattrEntrySize(name, value)
	for n, v := range m {
		if n != name {
			total += ondisk.XattrEntrySize(n, v)
		}
	}
	if total > ondisk.XattrCapacity(fs.geo.bs) {
		return fmt.Errorf("attributes of inode %d need %d bytes, a block holds %d: %w",
			ino, total, ondisk.XattrCapacity(fs.geo.bs), ErrNoSpace)
	}
	if !exists || len(old) < len(value) {
		if err := fs.checkSpaceLocked(1); err != nil {
			return err
		}
	}
	m[name] = slices.Clone(value)
	fs.xattrChangedLocked(in)
	return nil
}

func (fs *FS) xattrChangedLocked(in *inode) {
	in.xattrDirty = true
	in.d.Ctime = now()
	fs.touchLocked(in)
}

// Listxattr returns the attribute names of ino, sorted.
func (fs *FS) Listxattr(ino Ino) ([]string, error) {
	fs.stats.count(opXattr, 0)
	fs.lock()
	defer fs.unlock()
	m, err := fs.inodeXattrsLocked(ino)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// Removexattr removes attribute name (ErrNoXattr if absent).
func (fs *FS) Removexattr(ino Ino, name string) error {
	fs.stats.count(opXattr, 0)
	if err := checkXattrName(name); err != nil {
		return err
	}
	fs.warm([]Ino{ino})
	if err := fs.lockChange(); err != nil {
		fs.unlock()
		return err
	}
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	in, err := fs.getLocked(ino)
	if err != nil {
		return err
	}
	m, err := fs.xattrsLocked(in)
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return fmt.Errorf("attribute %q of inode %d: %w", name, ino, ErrNoXattr)
	}
	delete(m, name)
	fs.xattrChangedLocked(in)
	return nil
}

// encodeXattrsLocked returns in's xattr block.
func (fs *FS) encodeXattrsLocked(in *inode) ([]byte, error) {
	names := make([]string, 0, len(in.xattrs))
	for n := range in.xattrs {
		names = append(names, n)
	}
	slices.Sort(names)
	xs := make([]ondisk.Xattr, len(names))
	for i, n := range names {
		xs[i] = ondisk.Xattr{Name: n, Value: in.xattrs[n]}
	}
	buf := make([]byte, fs.geo.bs)
	if err := ondisk.EncodeXattrs(buf, uint64(in.ino), xs); err != nil {
		return nil, fmt.Errorf("inode %d: %w: %w", in.ino, err, ErrCorrupt)
	}
	return buf, nil
}
