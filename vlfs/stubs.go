package vlfs

import "github.com/vlfs/vlfs/vld/device"

// FS is a mounted vlfs file system. Its methods are safe for concurrent use.
type FS struct{}

// Mkfs formats dev as an empty vlfs file system.
func Mkfs(dev device.Device, o MkfsOptions) error { return ErrNotSupported }

// Mount recovers and mounts the file system on dev.
func Mount(dev device.Device, o Options) (*FS, error) { return nil, ErrNotSupported }

func (fs *FS) Close() error                              { return ErrNotSupported }
func (fs *FS) Lookup(dir Ino, name string) (Attr, error) { return Attr{}, ErrNotSupported }
func (fs *FS) Forget(ino Ino, n uint64)                  {}
func (fs *FS) GetAttr(ino Ino) (Attr, error)             { return Attr{}, ErrNotSupported }
func (fs *FS) SetAttr(ino Ino, s SetAttr) (Attr, error)  { return Attr{}, ErrNotSupported }
func (fs *FS) Create(dir Ino, name string, mode, uid, gid uint32) (Attr, error) {
	return Attr{}, ErrNotSupported
}
func (fs *FS) Mkdir(dir Ino, name string, mode, uid, gid uint32) (Attr, error) {
	return Attr{}, ErrNotSupported
}
func (fs *FS) Mknod(dir Ino, name string, mode, rdev, uid, gid uint32) (Attr, error) {
	return Attr{}, ErrNotSupported
}
func (fs *FS) Symlink(dir Ino, name, target string, uid, gid uint32) (Attr, error) {
	return Attr{}, ErrNotSupported
}
func (fs *FS) Readlink(ino Ino) (string, error)                   { return "", ErrNotSupported }
func (fs *FS) Link(ino, newDir Ino, newName string) (Attr, error) { return Attr{}, ErrNotSupported }
func (fs *FS) Unlink(dir Ino, name string) error                  { return ErrNotSupported }
func (fs *FS) Rmdir(dir Ino, name string) error                   { return ErrNotSupported }
func (fs *FS) Rename(oldDir Ino, oldName string, newDir Ino, newName string, flags uint32) error {
	return ErrNotSupported
}
func (fs *FS) Open(ino Ino) error                                      { return ErrNotSupported }
func (fs *FS) Release(ino Ino) error                                   { return ErrNotSupported }
func (fs *FS) Read(ino Ino, off int64, buf []byte) (int, error)        { return 0, ErrNotSupported }
func (fs *FS) Write(ino Ino, off int64, data []byte) (int, error)      { return 0, ErrNotSupported }
func (fs *FS) Fallocate(ino Ino, mode uint32, off, length int64) error { return ErrNotSupported }
func (fs *FS) Fsync(ino Ino, datasync bool) error                      { return ErrNotSupported }
func (fs *FS) Sync() error                                             { return ErrNotSupported }
func (fs *FS) ReadDir(dir Ino) ([]DirEntry, error)                     { return nil, ErrNotSupported }
func (fs *FS) Getxattr(ino Ino, name string) ([]byte, error)           { return nil, ErrNotSupported }
func (fs *FS) Setxattr(ino Ino, name string, value []byte, flags uint32) error {
	return ErrNotSupported
}
func (fs *FS) Listxattr(ino Ino) ([]string, error)    { return nil, ErrNotSupported }
func (fs *FS) Removexattr(ino Ino, name string) error { return ErrNotSupported }
func (fs *FS) StatFS() (StatFS, error)                { return StatFS{}, ErrNotSupported }
func (fs *FS) Stats() Stats                           { return Stats{} }
func (fs *FS) Check() error                           { return ErrNotSupported }
