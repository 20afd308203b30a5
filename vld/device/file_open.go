package device

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// OpenFile opens a regular file or a block device. Unless o.NoLock, it
// locks the image however it is named (file_lock.go): a regular file gets a
// non-blocking flock, exclusive (shared when o.ReadOnly); a block device is
// opened with O_EXCL, and a loop device's backing file is flocked as well.
// It fails with an error wrapping ErrLocked naming the path when another
// holder has it, and ErrNoLock when the image behind a loop device cannot
// be locked. The lock is taken before any resize, so a Create with Size
// never truncates an image that someone else has open. A block device's size comes from the
// device (seek to its end); a regular file's from its length after resizing.
func OpenFile(path string, o FileOptions) (*File, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f, err := openOS(path, o)
	if err != nil {
		return nil, err
	}
	d, err := setUp(f, path, o)
	if err != nil {
		f.Close() // the setup error is the one worth reporting
		return nil, err
	}
	return d, nil
}

// openOS opens the descriptor with the flags o asks for.
func openOS(path string, o FileOptions) (*os.File, error) {
	flag := os.O_RDWR
	if o.ReadOnly {
		flag = os.O_RDONLY
	}
	if o.Create {
		flag |= os.O_CREATE
	}
	if o.Direct {
		flag |= unix.O_DIRECT
	}
	var f *os.File
	var err error
	if !o.NoLock && isBlockDevice(path) {
		// O_CREAT with O_EXCL would refuse the existing device (EEXIST)
		f, err = openExclusive(path, flag&^os.O_CREATE, 0o600)
	} else if f, err = os.OpenFile(path, flag, 0o600); err == nil && !o.NoLock {
		// A block device put at path after the stat above needs O_EXCL.
		if st, serr := f.Stat(); serr == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0 {
			f.Close()
			f, err = openExclusive(path, flag&^os.O_CREATE, 0o600)
		}
	}
	if errors.Is(err, ErrLocked) {
		return nil, err
	}
	if err != nil && o.Direct && errors.Is(err, unix.EINVAL) {
		return nil, fmt.Errorf("open %s with O_DIRECT (open it without Direct instead): %w", path, ErrNoDirect)
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return nil, err // it names the operation and the path already
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// setUp locks, sizes and wraps an opened descriptor.
func setUp(f *os.File, path string, o FileOptions) (*File, error) {
	var locks []*os.File
	if !o.NoLock {
		var err error
		if locks, err = claimOpened(f, path, o.ReadOnly, 0); err != nil {
			return nil, err
		}
	}
	size, err := sizeOf(f, path, o)
	if err != nil {
		closeAll(locks)
		return nil, err
	}
	if o.Direct && size%DirectAlign != 0 {
		return nil, fmt.Errorf("open %s: direct I/O needs a size that is a multiple of %d, got %d: %w",
			path, DirectAlign, size, ErrBadOptions)
	}
	d := &File{path: path, size: size, readOnly: o.ReadOnly, direct: o.Direct, f: f, locks: locks}
	d.fl.init(fdatasync(f))
	if !o.Direct && !o.ReadOnly {
		d.wb = startWriteback(int(f.Fd()), o.WritebackBytes)
	}
	return d, nil
}

// sizeOf resizes a regular file when asked and returns the device size.
func sizeOf(f *os.File, path string, o FileOptions) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", path, err)
	}
	mode := st.Mode()
	switch {
	case mode.IsRegular():
		return regularSize(f, path, o, st.Size())
	case mode&os.ModeDevice != 0 && mode&os.ModeCharDevice == 0:
		return blockSize(f, path, o)
	default:
		return 0, fmt.Errorf("open %s: %s, neither a regular file nor a block device: %w", path, fileKind(mode), ErrBadOptions)
	}
}

// fileKind names what a path that is no image is (mode.Type() printed a
// directory as "d---------").
func fileKind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&os.ModeCharDevice != 0:
		return "a character device"
	case mode&os.ModeSymlink != 0:
		return "a symbolic link"
	case mode&os.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a file (" + mode.Type().String() + ")"
}

func regularSize(f *os.File, path string, o FileOptions, cur int64) (int64, error) {
	if o.Size == 0 || o.Size == cur {
		return cur, nil
	}
	if err := f.Truncate(o.Size); err != nil {
		return 0, fmt.Errorf("resize %s to %d: %w", path, o.Size, err)
	}
	return o.Size, nil
}

// blockSize asks the device for its size by seeking to its end; pread and
// pwrite ignore the file offset, so moving it is harmless.
func blockSize(f *os.File, path string, o FileOptions) (int64, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("size of block device %s: %w", path, err)
	}
	if o.Size != 0 && o.Size != size {
		return 0, fmt.Errorf("block device %s has %d bytes; it cannot be resized to %d: %w", path, size, o.Size, ErrBadOptions)
	}
	return size, nil
}
