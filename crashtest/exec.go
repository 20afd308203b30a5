package crashtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vlfs"
)

// executor applies ops to a mounted file system, resolving paths from the
// root on every call (as a process would with open/openat).
type executor struct {
	fs   *vlfs.FS
	comp *compactCount // if set, compact ops count themselves here
}

// compactCount is what a recording's compact ops did.
type compactCount struct {
	ops   int   // compact ops run
	moved int64 // blocks they moved
}

// resolve walks path from the root.
func (e executor) resolve(path string) (vlfs.Ino, error) {
	ino := vlfs.RootIno
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		a, err := e.fs.Lookup(ino, name)
		if err != nil {
			return 0, err
		}
		ino = a.Ino
	}
	return ino, nil
}

// parent resolves the directory of path and returns it with the last name.
func (e executor) parent(path string) (vlfs.Ino, string, error) {
	dir, name := "", path
	if i := strings.LastIndex(path, "/"); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	ino, err := e.resolve(dir)
	return ino, name, err
}

// do applies op; tag makes written data distinct per op.
func (e executor) do(op Op, tag int) error {
	switch op.Kind {
	case "creat", "mkdir", "symlink":
		return e.create(op)
	case "link":
		return e.link(op)
	case "tmpfile":
		return e.tmpfile(op, tag)
	case "unlink", "rmdir":
		return e.remove(op)
	case "rename":
		return e.rename(op)
	case "sync":
		return e.fs.Sync()
	case "compact":
		return e.compact(op)
	default:
		return e.onInode(op, tag)
	}
}

func (e executor) create(op Op) error {
	path := op.Args[0]
	if op.Kind == "symlink" {
		path = op.Args[1]
	}
	dir, name, err := e.parent(path)
	if err != nil {
		return err
	}
	switch op.Kind {
	case "creat":
		_, err = e.fs.Create(dir, name, 0o644, 0, 0)
	case "mkdir":
		_, err = e.fs.Mkdir(dir, name, 0o755, 0, 0)
	default:
		_, err = e.fs.Symlink(dir, name, op.Args[0], 0, 0)
	}
	return err
}

func (e executor) link(op Op) error {
	ino, err := e.resolve(op.Args[0])
	if err != nil {
		return err
	}
	dir, name, err := e.parent(op.Args[1])
	if err != nil {
		return err
	}
	_, err = e.fs.Link(ino, dir, name)
	return err
}

// tmpfile makes an unnamed file (open(2) with O_TMPFILE), writes it, and
// names it by link (linkat(2)), as the kernel would through a mount.
func (e executor) tmpfile(op Op, tag int) error {
	dir, name, err := e.parent(op.Args[0])
	if err != nil {
		return err
	}
	a, err := e.fs.CreateTmp(dir, 0o644, 0, 0)
	if err != nil {
		return err
	}
	defer e.fs.Forget(a.Ino, 1)
	if err := e.fs.Open(a.Ino); err != nil {
		return err
	}
	defer e.fs.Release(a.Ino)
	if _, err := e.fs.Write(a.Ino, 0, pattern(tag, 0, op.num(1))); err != nil {
		return err
	}
	b, err := e.fs.Link(a.Ino, dir, name)
	if err == nil {
		e.fs.Forget(b.Ino, 1)
	}
	return err
}

func (e executor) remove(op Op) error {
	dir, name, err := e.parent(op.Args[0])
	if err != nil {
		return err
	}
	if op.Kind == "rmdir" {
		return e.fs.Rmdir(dir, name)
	}
	return e.fs.Unlink(dir, name)
}

func (e executor) rename(op Op) error {
	od, on, err := e.parent(op.Args[0])
	if err != nil {
		return err
	}
	nd, nn, err := e.parent(op.Args[1])
	if err != nil {
		return err
	}
	return e.fs.Rename(od, on, nd, nn, 0)
}

// Steps of a compact op: the default, and the most a workload may ask.
const (
	defaultCompactSteps = 24
	maxCompactSteps     = 10000
)

// compact runs the idle-time compactor for the op's number of steps
// (default defaultCompactSteps), or until it has nothing left to do. Its
// target is every track empty, which it never reaches, so it moves all it
// can. An odd step count commits every step (small steps make many
// commits, so many crash points); an even one, the default, commits once
// per source track, leaving moves uncommitted across steps. Each move is
// durable before the old copy is freed (docs/compactor.md): a crash
// anywhere must recover a history state.
func (e executor) compact(op Op) error {
	steps := int64(defaultCompactSteps)
	if len(op.Args) == 1 {
		steps = op.num(0)
	}
	// Every commit pattern: each step, each source track, every 32 moves
	// (the default).
	cfg := compactor.Config{TargetEmpty: 1, StepBlocks: 2}
	switch steps % 3 {
	case 1:
		cfg.CommitEachStep = true
	case 2:
		cfg.SettleBlocks = 1
	}
	c, err := compactor.New(e.fs.CompactTarget(), cfg)
	if err != nil {
		return err
	}
	for range steps {
		done, err := c.Step()
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	if e.comp != nil {
		e.comp.ops++
		e.comp.moved += c.Stats().BlocksMoved
	}
	return nil
}

// fallocMode is the fallocate mode falloc's 4th argument names.
func fallocMode(word string) (uint32, bool) {
	switch word {
	case "keep":
		return vlfs.FallocKeepSize, true
	case "punch":
		return vlfs.FallocPunchHole | vlfs.FallocKeepSize, true
	case "zero":
		return vlfs.FallocZeroRange, true
	case "zero-keep":
		return vlfs.FallocZeroRange | vlfs.FallocKeepSize, true
	}
	return 0, false
}

// onInode runs the ops that act on the inode at Args[0].
func (e executor) onInode(op Op, tag int) error {
	ino, err := e.resolve(op.Args[0])
	if err != nil {
		return err
	}
	switch op.Kind {
	case "write":
		_, err = e.fs.Write(ino, op.num(1), pattern(tag, op.num(1), op.num(2)))
	case "falloc":
		var mode uint32
		if len(op.Args) == 4 {
			mode, _ = fallocMode(op.Args[3])
		}
		err = e.fs.Fallocate(ino, mode, op.num(1), op.num(2))
	case "copy":
		var dst vlfs.Ino
		if dst, err = e.resolve(op.Args[3]); err == nil {
			_, err = e.fs.CopyRange(ino, op.num(1), dst, op.num(4), op.num(2))
		}
	case "truncate":
		_, err = e.fs.SetAttr(ino, vlfs.SetAttr{Mask: vlfs.SetSize, Size: uint64(op.num(1))})
	case "setxattr":
		err = e.fs.Setxattr(ino, op.Args[1], []byte(op.Args[2]), 0)
	case "removexattr":
		err = e.fs.Removexattr(ino, op.Args[1])
	case "chmod":
		m, _ := strconv.ParseUint(op.Args[1], 8, 12)
		_, err = e.fs.SetAttr(ino, vlfs.SetAttr{Mask: vlfs.SetMode, Mode: uint32(m)})
	case "fsync", "fdatasync":
		err = e.fs.Fsync(ino, op.Kind == "fdatasync")
	default:
		err = fmt.Errorf("operation %q: %w", op.Kind, ErrBadWorkload)
	}
	return err
}

// pattern is the data a write with this tag puts at [off, off+n): it
// depends on the absolute offset, so misplaced or stale data shows.
func pattern(tag int, off, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		p := off + int64(i)
		b[i] = byte('a' + (int64(tag)*7+p/512)%26)
		if p%64 == 63 {
			b[i] = '\n'
		}
	}
	return b
}
