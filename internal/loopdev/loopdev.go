// Package loopdev attaches a file to a free loop device that detaches
// itself once nothing holds it open (LO_FLAGS_AUTOCLEAR), as mount -o loop
// does. vlfs mounts as type fuseblk over such a device so that the kernel
// propagates syncfs(2) and sync(2) to it (docs/durability.md).
//
// It owns no state beyond the device it returns; no locks.
package loopdev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ioctls of linux/loop.h that x/sys v0.4.0 lacks.
const loopConfigure = 0x4C0A // LOOP_CONFIGURE (Linux 5.8)

// loopConfig is struct loop_config.
type loopConfig struct {
	fd        uint32
	blockSize uint32
	info      unix.LoopInfo64
	_         [8]uint64
}

// Available says why loop devices cannot be attached here (not root, or
// no /dev/loop-control), or nil if they can.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("loop devices need root")
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return fmt.Errorf("no loop devices here: %w", err)
	}
	return nil
}

// Device is an attached loop device. Close drops this process's hold on
// it; the device detaches when no one else (a mount) holds it either.
type Device struct {
	Path string // /dev/loopN
	f    *os.File
}

// Attach attaches path to a free loop device, read-only if readOnly.
func Attach(path string, readOnly bool) (*Device, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	backing, err := os.OpenFile(abs, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("loop device for %s: %w", path, err)
	}
	defer backing.Close() // the device keeps its own reference
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("loop device for %s: %w", path, err)
	}
	defer ctl.Close()
	// Another process may take the free device between the two calls.
	for range 8 {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("loop device for %s: LOOP_CTL_GET_FREE: %w", path, err)
		}
		dev := fmt.Sprintf("/dev/loop%d", n)
		f, err := os.OpenFile(dev, flag, 0)
		if err != nil {
			return nil, fmt.Errorf("loop device for %s: %w", path, err)
		}
		cfg := loopConfig{fd: uint32(backing.Fd())}
		cfg.info.Flags = unix.LO_FLAGS_AUTOCLEAR
		if readOnly {
			cfg.info.Flags |= unix.LO_FLAGS_READ_ONLY
		}
		copy(cfg.info.File_name[:len(cfg.info.File_name)-1], abs)
		_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), loopConfigure, uintptr(unsafe.Pointer(&cfg)))
		if e == 0 {
			return &Device{Path: dev, f: f}, nil
		}
		f.Close()
		if !errors.Is(e, unix.EBUSY) {
			return nil, fmt.Errorf("loop device for %s: LOOP_CONFIGURE %s: %w", path, dev, e)
		}
	}
	return nil, fmt.Errorf("loop device for %s: every free device was taken first", path)
}

// Close drops this process's hold on the device.
func (d *Device) Close() error { return d.f.Close() }

// BackingFile returns the file attached to loop device dev (/dev/loopN,
// or any name of it), or "" if it has none or is no loop device.
func BackingFile(dev string) string {
	var st unix.Stat_t
	if unix.Stat(dev, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return ""
	}
	name, _ := BackingOf(st.Rdev)
	return name
}

// BackingOf returns the name of the file attached to the block device
// numbered rdev, as the kernel shows it (" (deleted)" appended once the
// file has no name left), and nil; "" and nil if rdev is no loop device or
// one with nothing attached.
func BackingOf(rdev uint64) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/sys/dev/block/%d:%d/loop/backing_file", unix.Major(rdev), unix.Minor(rdev)))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}
