package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vlfs/vlfs/vlfs"
)

// surgeryFlags are inspect's DANGEROUS options: each damages the image
// in one way so that tests and experts can show what fsck finds and
// repairs (docs/fsck.md). Nothing happens without --damage.
type surgeryFlags struct {
	damage                       *bool
	setNlink, setSize, setBlocks *string // INO:N
	setParent, shareBlock        *string // INO:INO
	dropEntry                    *string // DIRINO:NAME
	orphan                       *uint64
	leakBlock                    *bool
	leakNode                     *uint64
	corrupt                      *string // ADDR[:OFF]
}

func addSurgeryFlags(fl *flag.FlagSet) *surgeryFlags {
	const warn = "DANGEROUS: "
	return &surgeryFlags{
		damage:     fl.Bool("damage", false, warn+"required with any surgery flag below: I mean to damage this image"),
		setNlink:   fl.String("set-nlink", "", warn+"INO:N set an inode's link count"),
		setSize:    fl.String("set-size", "", warn+"INO:N set an inode's size without touching its blocks"),
		setBlocks:  fl.String("set-blocks", "", warn+"INO:N set an inode's block count"),
		setParent:  fl.String("set-parent", "", warn+"INO:PARENT set a directory's \"..\""),
		shareBlock: fl.String("share-block", "", warn+"INO:FROM point INO's first block at FROM's (a block claimed twice)"),
		dropEntry:  fl.String("drop-entry", "", warn+"DIRINO:NAME remove a directory entry, keeping link counts"),
		orphan:     fl.Uint64("orphan", 0, warn+"INO remove every entry naming an inode (it becomes unreachable)"),
		leakBlock:  fl.Bool("leak-block", false, warn+"add an inode block that holds no inode in use"),
		leakNode:   fl.Uint64("leak-node", 0, warn+"INO add an indirect block of INO that the inode map places and no tree names (file-system version 2)"),
		corrupt:    fl.String("corrupt", "", warn+"ADDR[:OFF] flip every bit of byte OFF (default 0) of block ADDR"),
	}
}

func (s *surgeryFlags) any() bool {
	return *s.damage || *s.setNlink != "" || *s.setSize != "" || *s.setBlocks != "" || *s.setParent != "" ||
		*s.shareBlock != "" || *s.dropEntry != "" || *s.orphan != 0 || *s.leakBlock || *s.leakNode != 0 || *s.corrupt != ""
}

// runSurgery applies the surgery flags: file-system surgery through a
// read-write mount that commits at the end, then byte corruption.
func runSurgery(path string, s *surgeryFlags, stdout, stderr io.Writer) int {
	if !*s.damage {
		fmt.Fprintln(stderr, "vlfs inspect: surgery flags damage the image; add --damage to confirm")
		return exitUsage
	}
	ops, err := s.fsOps()
	if err != nil {
		fmt.Fprintf(stderr, "vlfs inspect: %v\n", err)
		return exitUsage
	}
	if len(ops) > 0 {
		if err := fsSurgery(path, ops); err != nil {
			fmt.Fprintf(stderr, "vlfs inspect: %v\n", err)
			return exitFailure
		}
	}
	if *s.corrupt != "" {
		if err := corruptByte(path, *s.corrupt); err != nil {
			fmt.Fprintf(stderr, "vlfs inspect: --corrupt: %v\n", err)
			return exitFailure
		}
	}
	fmt.Fprintf(stdout, "%s: damaged on purpose; vlfs fsck %s should now find it\n", path, path)
	return exitOK
}

// surgeryOp is one surgery on a mounted file system.
type surgeryOp func(fs *vlfs.FS) error

// fsOps turns the flags into surgery operations.
func (s *surgeryFlags) fsOps() ([]surgeryOp, error) {
	var ops []surgeryOp
	pairs := []struct {
		v  string
		do func(fs *vlfs.FS, a, b uint64) error
	}{
		{*s.setNlink, func(fs *vlfs.FS, a, b uint64) error { return fs.SurgerySetNlink(vlfs.Ino(a), uint32(b)) }},
		{*s.setSize, func(fs *vlfs.FS, a, b uint64) error { return fs.SurgerySetSize(vlfs.Ino(a), b) }},
		{*s.setBlocks, func(fs *vlfs.FS, a, b uint64) error { return fs.SurgerySetBlocks(vlfs.Ino(a), b) }},
		{*s.setParent, func(fs *vlfs.FS, a, b uint64) error { return fs.SurgerySetParent(vlfs.Ino(a), vlfs.Ino(b)) }},
		{*s.shareBlock, func(fs *vlfs.FS, a, b uint64) error { return fs.SurgeryShareBlock(vlfs.Ino(a), 0, vlfs.Ino(b)) }},
	}
	for _, p := range pairs {
		if p.v == "" {
			continue
		}
		a, b, err := parsePair(p.v)
		if err != nil {
			return nil, err
		}
		do := p.do
		ops = append(ops, func(fs *vlfs.FS) error { return do(fs, a, b) })
	}
	if *s.dropEntry != "" {
		dir, name, ok := strings.Cut(*s.dropEntry, ":")
		d, err := strconv.ParseUint(dir, 10, 64)
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("--drop-entry %q: want DIRINO:NAME", *s.dropEntry)
		}
		ops = append(ops, func(fs *vlfs.FS) error { return fs.SurgeryDropEntry(vlfs.Ino(d), name) })
	}
	if ino := *s.orphan; ino != 0 {
		ops = append(ops, func(fs *vlfs.FS) error { _, err := fs.SurgeryOrphan(vlfs.Ino(ino)); return err })
	}
	if *s.leakBlock {
		ops = append(ops, func(fs *vlfs.FS) error { _, err := fs.SurgeryLeakBlock(); return err })
	}
	if ino := *s.leakNode; ino != 0 {
		ops = append(ops, func(fs *vlfs.FS) error { _, err := fs.SurgeryLeakNode(vlfs.Ino(ino)); return err })
	}
	return ops, nil
}

// parsePair reads "A:B" as two numbers.
func parsePair(v string) (uint64, uint64, error) {
	x, y, ok := strings.Cut(v, ":")
	a, err1 := strconv.ParseUint(x, 10, 64)
	b, err2 := strconv.ParseUint(y, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q: want two numbers A:B", v)
	}
	return a, b, nil
}

// fsSurgery mounts the image read-write, applies ops and closes (which
// commits the damage).
func fsSurgery(path string, ops []surgeryOp) error {
	dev, err := openInspected(path, false)
	if err != nil {
		return err
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{})
	if err != nil {
		dev.Close()
		return err
	}
	for _, op := range ops {
		if err := op(fs); err != nil {
			fs.Close()
			return err
		}
	}
	return fs.Close()
}

// corruptByte flips every bit of one byte of one block, below every
// checksum: the next reader of that block must notice.
func corruptByte(path, spec string) error {
	as, offs, _ := strings.Cut(spec, ":")
	a, err := strconv.ParseUint(as, 10, 64)
	off := uint64(0)
	if err == nil && offs != "" {
		off, err = strconv.ParseUint(offs, 10, 64)
	}
	if err != nil {
		return fmt.Errorf("%q: want ADDR[:OFF]", spec)
	}
	dev, err := openInspected(path, false)
	if err != nil {
		return err
	}
	defer dev.Close()
	bs, err := imageBlockSize(dev)
	if err != nil {
		return err
	}
	if off >= uint64(bs) || int64(a+1)*int64(bs) > dev.Size() {
		return fmt.Errorf("block %d byte %d is outside the image", a, off)
	}
	pos := int64(a)*int64(bs) + int64(off)
	b := []byte{0}
	if _, err := dev.ReadAt(b, pos); err != nil {
		return err
	}
	b[0] ^= 0xff
	if _, err := dev.WriteAt(b, pos); err != nil {
		return err
	}
	return dev.Flush()
}
