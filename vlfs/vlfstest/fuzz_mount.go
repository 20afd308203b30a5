package vlfstest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// This file holds the mount-and-recover fuzz target, shared by the native
// target FuzzMountCorrupt (fuzz_test.go) and the go-fuzz adapter
// FuzzGoMountCorrupt (gofuzz.go).

// fuzzHangLimit is how long one input of fuzzMount or fuzzOpsModel may
// run before a timer panics (a hang; both engines treat the panic as a
// crasher). Each input may also allocate at most fuzzlimit.AllocLimit.
const fuzzHangLimit = 20 * time.Second

// fuzzBaseImage returns a small populated image for fuzzMount to damage:
// a 2 MiB volume with a directory of 20 files (data, xattrs), a symlink
// and a sparse file with an indirect block.
func fuzzBaseImage() ([]byte, error) {
	m, err := disk.Preset("st19101")
	if err != nil {
		return nil, err
	}
	dev := device.NewMem(2 << 20)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m}); err != nil {
		return nil, err
	}
	fs, err := vlfs.Mount(noClose{dev}, vlfs.Options{})
	if err != nil {
		return nil, err
	}
	if err := fuzzPopulate(fs); err != nil {
		fs.Close()
		return nil, err
	}
	if err := fs.Close(); err != nil {
		return nil, err
	}
	return dev.Bytes(), nil
}

func fuzzPopulate(fs *vlfs.FS) error {
	d, err := fs.Mkdir(vlfs.RootIno, "d", 0o755, 0, 0)
	if err != nil {
		return err
	}
	for i := range 20 {
		a, err := fs.Create(d.Ino, fmt.Sprintf("f%d", i), 0o644, 0, 0)
		if err != nil {
			return err
		}
		if _, err := fs.Write(a.Ino, int64(i*4096), make([]byte, 100+i*700)); err != nil {
			return err
		}
		if err := fs.Setxattr(a.Ino, "user.i", []byte{byte(i)}, 0); err != nil {
			return err
		}
	}
	if _, err := fs.Symlink(vlfs.RootIno, "l", "d/f1", 0, 0); err != nil {
		return err
	}
	big, err := fs.Create(vlfs.RootIno, "big", 0o644, 0, 0)
	if err != nil {
		return err
	}
	_, err = fs.Write(big.Ino, 60<<10, []byte("past the direct blocks: an indirect block"))
	return err
}

// fuzzMount damages a copy of img as damage says (5 bytes per change: a
// little-endian offset, taken modulo the image size, and an XOR mask) and
// mounts it over a memory device. Mount must fail cleanly or give a file
// system; if its Check is clean, a round of operations and a Sync must
// leave it clean (a consistent file system stays consistent); if not,
// the operations may fail but must not panic. It returns 1 when the
// damaged image mounted.
func fuzzMount(img, damage []byte) (int, error) {
	return fuzzlimit.Run(fuzzHangLimit, func() (int, error) { return fuzzMountOnce(img, damage) })
}

func fuzzMountOnce(img, damage []byte) (int, error) {
	dev := device.MemFrom(fuzzDamaged(img, damage))
	fs, err := vlfs.Mount(dev, vlfs.Options{FlushInterval: time.Hour})
	if err != nil {
		return 0, nil
	}
	defer fs.Close()
	clean := fs.Check() == nil
	fuzzExercise(fs)
	if err := fs.Sync(); err != nil || !clean {
		return 1, nil
	}
	if err := fs.Check(); err != nil {
		return 1, fmt.Errorf("a file system that checked clean is damaged after operations: %w", err)
	}
	return 1, nil
}

// fuzzRepair damages a copy of img as fuzzMount does and runs Repair.
// Properties (issue 34): Repair never panics; when it fixes nothing the
// image is unchanged; when it fixes something it leaves nothing but
// damaged file data, which has no copy to repair from (a second check
// finds nothing else, a normal mount checks so, and operations on the
// result keep it so). It returns 1 when Repair changed the image.
func fuzzRepair(img, damage []byte) (int, error) {
	return fuzzlimit.Run(fuzzHangLimit, func() (int, error) { return fuzzRepairOnce(img, damage) })
}

// fuzzDamaged is a copy of img damaged as damage says: 5 bytes per
// change, a little-endian offset (modulo the image size) and an XOR mask.
func fuzzDamaged(img, damage []byte) []byte {
	b := append([]byte(nil), img...)
	for ; len(damage) >= 5; damage = damage[5:] {
		b[binary.LittleEndian.Uint32(damage)%uint32(len(b))] ^= damage[4]
	}
	return b
}

func fuzzRepairOnce(img, damage []byte) (int, error) {
	b := fuzzDamaged(img, damage)
	dev := device.MemFrom(b)
	res, err := vlfs.Repair(dev, vlfs.Options{FlushInterval: time.Hour})
	if err != nil {
		return 0, nil // not damage it claims to fix (the volume does not open, ...)
	}
	if len(res.Fixed) == 0 {
		if !bytes.Equal(dev.Bytes(), b) {
			return 0, fmt.Errorf("repair fixed nothing, yet changed the image (left %v)", res.Left)
		}
		return 0, nil
	}
	if left := notData(res.Left); len(left) != 0 {
		if len(res.Fixed) == 1 && hasKind(res.Found, vlfs.FindRedundancy) {
			return 1, nil // the open wrote lost copies again; the rest it cannot fix
		}
		return 1, fmt.Errorf("repair changed the image (%q) and left %v", res.Fixed, left)
	}
	fs, err := vlfs.Mount(noClose{dev}, vlfs.Options{FlushInterval: time.Hour})
	if err != nil {
		return 1, fmt.Errorf("the repaired image does not mount: %w (fixed %q)", err, res.Fixed)
	}
	defer fs.Close()
	if fds, err := fs.Findings(); err != nil || len(notData(fds)) > 0 {
		return 1, fmt.Errorf("the repaired image does not check clean: %v %v (fixed %q)", notData(fds), err, res.Fixed)
	}
	fuzzExercise(fs)
	if err := fs.Sync(); err != nil {
		return 1, fmt.Errorf("sync of the repaired image: %w", err)
	}
	if fds, err := fs.Findings(); err != nil || len(notData(fds)) > 0 {
		return 1, fmt.Errorf("the repaired image is damaged after operations: %v %v", notData(fds), err)
	}
	return 1, nil
}

// notData is fds without data-checksum findings: damaged file data, which
// a repair reports and leaves (reads of it fail; nothing else does).
func notData(fds []vlfs.Finding) []vlfs.Finding {
	var out []vlfs.Finding
	for _, f := range fds {
		if f.Kind != vlfs.FindDataChecksum {
			out = append(out, f)
		}
	}
	return out
}

// fuzzExercise runs a few operations over the whole tree, ignoring
// errors (a damaged file system may refuse them).
func fuzzExercise(fs *vlfs.FS) {
	var walk func(ino vlfs.Ino, depth int)
	walk = func(ino vlfs.Ino, depth int) {
		ents, err := fs.ReadDir(ino)
		if err != nil || depth > 4 || len(ents) < 2 {
			return
		}
		for _, e := range ents[2:] {
			fs.GetAttr(e.Ino)
			fs.Read(e.Ino, 0, make([]byte, 9000))
			fs.Readlink(e.Ino)
			fs.Listxattr(e.Ino)
			fs.Write(e.Ino, 100, []byte("x"))
			walk(e.Ino, depth+1)
		}
		fs.Create(ino, "new", 0o644, 0, 0)
		for _, e := range ents[2:] {
			fs.Unlink(ino, e.Name)
			fs.Rmdir(ino, e.Name)
		}
	}
	walk(vlfs.RootIno, 0)
}
