package profile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/vld/device"
)

// FileOptions say how OpenFile reaches a real target.
type FileOptions struct {
	// Size is the size of a regular file to create; required when the
	// file does not exist.
	Size int64
	// Offset and Region delimit the part of the file or device that may
	// be written: [Offset, Offset+Region); Region 0 means to the end.
	Offset, Region int64
	// DestroyData allows writing over an existing file, or over a block
	// device that is in use or holds a recognisable file system or image.
	// A mounted block device is refused even so.
	DestroyData bool
	// NoDirect skips O_DIRECT; without it O_DIRECT is used where the file
	// system or device accepts it.
	NoDirect bool
	// Keep leaves a file the measurement created in place.
	Keep bool
}

// File is a real target: a regular file or a block device, written with
// O_DSYNC (and O_DIRECT where allowed) and timed on the wall clock. Every
// write is checked against the region before it is issued.
type File struct {
	f       *os.File
	path    string
	kind    string
	off     int64
	size    int64
	direct  bool
	created bool
	keep    bool
}

// OpenFile opens path for profiling. A missing path is created as a
// regular file of o.Size bytes, filled once so that the measured writes
// are overwrites (a first write into a hole also updates the file
// system's metadata), and removed by Close unless o.Keep. An existing
// regular file is used only with o.DestroyData. A block device is checked
// by CheckBlockDevice first.
func OpenFile(path string, o FileOptions) (*File, error) {
	if o.Size < 0 || o.Offset < 0 || o.Region < 0 {
		return nil, fmt.Errorf("profile %s: negative size or region: %w", path, ErrInvalid)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return createFile(path, o)
	case err != nil:
		return nil, fmt.Errorf("profile: %w", err)
	case st.Mode().IsRegular():
		if !o.DestroyData {
			return nil, fmt.Errorf("%s exists and profiling overwrites it (use --destroy-data, or name a new file): %w", path, ErrUnsafe)
		}
		return openTarget(path, KindFile, false, o)
	case st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0:
		if err := CheckBlockDevice(path, o.Offset, o.DestroyData); err != nil {
			return nil, err
		}
		return openTarget(path, KindBlockDev, false, o)
	}
	return nil, fmt.Errorf("%s is neither a regular file nor a block device: %w", path, ErrInvalid)
}

func createFile(path string, o FileOptions) (*File, error) {
	if o.Size <= 0 {
		return nil, fmt.Errorf("%s does not exist: give its size to create it: %w", path, ErrInvalid)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	err = fill(f, o.Size)
	f.Close()
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("profile: creating %s: %w", path, err)
	}
	t, err := openTarget(path, KindFile, true, o)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return t, nil
}

// fill writes size bytes of zeros and syncs them.
func fill(f *os.File, size int64) error {
	chunk := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(chunk)) {
		n := min(int64(len(chunk)), size-off)
		if _, err := f.WriteAt(chunk[:n], off); err != nil {
			return err
		}
	}
	return f.Sync()
}

// openTarget opens the descriptor the measurement writes through.
func openTarget(path, kind string, created bool, o FileOptions) (*File, error) {
	flags := os.O_RDWR | unix.O_DSYNC
	if kind == KindBlockDev {
		flags |= os.O_EXCL // the kernel refuses a device that is mounted or held
	}
	f, direct, err := openDirect(path, flags, !o.NoDirect)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	// A vlfs mount or another vlfs command holds a flock on its image.
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is in use by another process (lock: %v): %w", path, err, ErrUnsafe)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("profile: size of %s: %w", path, err)
	}
	t := &File{f: f, path: path, kind: kind, off: o.Offset, direct: direct, created: created, keep: o.Keep}
	t.size = end - o.Offset
	if o.Region > 0 {
		t.size = o.Region
	}
	if o.Offset > end || t.size <= 0 || t.size > end-o.Offset {
		f.Close()
		return nil, fmt.Errorf("region [%d, +%d) does not lie inside %s (%d bytes): %w", o.Offset, o.Region, path, end, ErrInvalid)
	}
	if direct && o.Offset%device.DirectAlign != 0 {
		f.Close()
		return nil, fmt.Errorf("direct I/O needs an offset that is a multiple of %d: %w", device.DirectAlign, ErrInvalid)
	}
	return t, nil
}

// openDirect opens with O_DIRECT when asked and allowed, else without.
func openDirect(path string, flags int, direct bool) (*os.File, bool, error) {
	if direct {
		f, err := os.OpenFile(path, flags|unix.O_DIRECT, 0)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, unix.EINVAL) {
			return nil, false, err
		}
	}
	f, err := os.OpenFile(path, flags, 0)
	return f, false, err
}

// Size implements Target.
func (t *File) Size() int64 { return t.size }

// Write implements Target: one pwrite with O_DSYNC, timed.
func (t *File) Write(off int64, buf []byte) (float64, error) {
	if err := checkRegion(off, len(buf), t.size); err != nil {
		return 0, err
	}
	if t.direct && !isAligned(buf) {
		b := device.AlignedBuffer(len(buf))
		copy(b, buf)
		buf = b
	}
	start := time.Now()
	if _, err := t.f.WriteAt(buf, t.off+off); err != nil {
		return 0, fmt.Errorf("write %s at %d: %w", t.path, t.off+off, err)
	}
	return float64(time.Since(start)) / float64(time.Millisecond), nil
}

// Wait implements Target: sleep most of the time, spin the rest, since a
// sleep alone overshoots by tens of microseconds.
func (t *File) Wait(ms float64) { waitPrecise(time.Duration(ms * float64(time.Millisecond))) }

// Info implements Target.
func (t *File) Info() TargetInfo {
	return TargetInfo{Kind: t.kind, Clock: ClockWall, OffsetBytes: t.off, Dsync: true, Direct: t.direct}
}

// Close closes the target and removes a file it created unless kept.
func (t *File) Close() error {
	err := t.f.Close()
	if t.created && !t.keep {
		if rerr := os.Remove(t.path); err == nil {
			err = rerr
		}
	}
	return err
}

// isAligned reports whether buf starts on an O_DIRECT boundary.
func isAligned(buf []byte) bool {
	return len(buf) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%device.DirectAlign == 0
}

// waitPrecise waits d: a sleep for all but the last 200 us, then a spin.
func waitPrecise(d time.Duration) {
	if d <= 0 {
		return
	}
	deadline := time.Now().Add(d)
	if d > 200*time.Microsecond {
		time.Sleep(d - 200*time.Microsecond)
	}
	for time.Now().Before(deadline) {
	}
}
