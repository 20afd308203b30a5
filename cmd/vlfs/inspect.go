package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/vlfs/vlfs/vld/device"
	vldondisk "github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vlfs"
)

// runInspect prints the structures of an image: the volume superblock,
// both checkpoint slots and the tail record (decoded from their fixed
// blocks), the inode map, one inode, one directory. With surgery flags
// (inspect_surgery.go) it damages the image on purpose instead.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fl.SetOutput(stderr)
	asJSON := fl.Bool("json", false, "print JSON")
	sf := addSurgeryFlags(fl)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs inspect [--json] IMAGE [summary|superblock|checkpoint|tail|imap|inode INO|dir INO]")
		fmt.Fprintln(stderr, "       vlfs inspect --damage SURGERY-FLAGS IMAGE   (DANGEROUS: damages the image on purpose)")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() < 1 {
		fl.Usage()
		return exitUsage
	}
	if sf.any() {
		return runSurgery(fl.Arg(0), sf, stdout, stderr)
	}
	out, code := inspectView(fl.Arg(0), fl.Args()[1:], stderr)
	if code != exitOK {
		return code
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return exitOK
	}
	for _, k := range []string{"superblock", "vlfs_superblock", "checkpoint_a", "checkpoint_b", "tail", "imap", "inode", "dir"} {
		if v, ok := out[k]; ok {
			b, _ := json.Marshal(v)
			fmt.Fprintf(stdout, "%s: %s\n", k, b)
		}
	}
	return exitOK
}

// inspectView builds the sections asked for.
func inspectView(path string, what []string, stderr io.Writer) (map[string]any, int) {
	dev, err := openInspected(path, true)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs inspect: %v\n", err)
		return nil, exitFailure
	}
	defer dev.Close()
	out := map[string]any{}
	sel := "summary"
	if len(what) > 0 {
		sel = what[0]
	}
	switch sel {
	case "summary", "superblock", "checkpoint", "tail":
		fixedBlocks(dev, sel, out)
		if sel != "summary" {
			return out, exitOK
		}
	case "imap", "inode", "dir":
	default:
		fmt.Fprintf(stderr, "vlfs inspect: unknown view %q\n", sel)
		return nil, exitUsage
	}
	return out, fsView(dev, sel, what[min(1, len(what)):], out, stderr)
}

// fixedBlocks decodes the volume's fixed blocks (each a section or the
// error decoding it).
func fixedBlocks(dev device.Device, sel string, out map[string]any) {
	buf := make([]byte, vldondisk.MinBlockSize)
	read := func(a int64) []byte {
		if _, err := dev.ReadAt(buf, a*int64(len(buf))); err != nil {
			return nil
		}
		return buf
	}
	orErr := func(v any, err error) any {
		if err != nil {
			return map[string]string{"error": err.Error()}
		}
		return v
	}
	sb, err := vldondisk.DecodeSuperblock(read(vldondisk.SuperblockAddr))
	if sel == "summary" || sel == "superblock" {
		out["superblock"] = orErr(superblockView(sb), err)
	}
	bs := 0
	if err == nil {
		bs = int(sb.BlockSize)
		buf = make([]byte, bs)
	}
	if bs == 0 || (sel != "summary" && sel != "checkpoint" && sel != "tail") {
		return
	}
	if sel != "tail" {
		out["checkpoint_a"] = orErr(vldondisk.DecodeCheckpoint(read(vldondisk.CheckpointA)))
		out["checkpoint_b"] = orErr(vldondisk.DecodeCheckpoint(read(vldondisk.CheckpointB)))
	}
	if sel != "checkpoint" {
		out["tail"] = orErr(vldondisk.DecodeTail(read(vldondisk.TailAddr)))
	}
}

// fsView mounts the image read-only for the file-system sections.
func fsView(dev device.Device, sel string, args []string, out map[string]any, stderr io.Writer) int {
	fs, err := vlfs.Mount(keepOpen{dev}, vlfs.Options{ReadOnly: true})
	if err != nil {
		out["mount_error"] = err.Error()
		if sel == "summary" {
			return exitOK
		}
		fmt.Fprintf(stderr, "vlfs inspect: %v\n", err)
		return exitFailure
	}
	defer fs.Close()
	addrs, inUse := fs.InodeMap()
	nodes := fs.NodeMap()
	switch sel {
	case "summary":
		out["vlfs_superblock"] = fs.Superblock()
		out["imap"] = map[string]any{"inode_blocks": countNonZero(addrs), "inodes_in_use": inUse, "nodes": countNonZero(nodes)}
		return exitOK
	case "imap":
		out["imap"] = map[string]any{"addrs": addrs, "inodes_in_use": inUse, "node_addrs": nodes}
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "vlfs inspect: %s needs an inode number\n", sel)
		return exitUsage
	}
	ino, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs inspect: inode %q: %v\n", args[0], err)
		return exitUsage
	}
	var v any
	if sel == "inode" {
		v, err = fs.InodeRecord(vlfs.Ino(ino))
	} else {
		v, err = fs.ReadDir(vlfs.Ino(ino))
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs inspect: %s %d: %v\n", sel, ino, err)
		return exitFailure
	}
	out[sel] = v
	return exitOK
}

func countNonZero(a []uint64) int {
	n := 0
	for _, x := range a {
		if x != 0 {
			n++
		}
	}
	return n
}

// keepOpen keeps Mount from closing a device the caller closes.
type keepOpen struct{ device.Device }

func (keepOpen) Close() error { return nil }

// imageBlockSize reads the block size from the volume superblock.
func imageBlockSize(dev device.Device) (int, error) {
	buf := make([]byte, vldondisk.MinBlockSize)
	if _, err := dev.ReadAt(buf, 0); err != nil {
		return 0, err
	}
	sb, err := vldondisk.DecodeSuperblock(buf)
	if err != nil {
		return 0, err
	}
	return int(sb.BlockSize), nil
}

// superblockView shows a volume superblock with its UUID as text and its
// disk model as JSON, not base64.
func superblockView(sb *vldondisk.Superblock) any {
	if sb == nil {
		return nil
	}
	v := map[string]any{"block_size": sb.BlockSize, "uuid": sb.UUID.String(), "num_blocks": sb.NumBlocks,
		"kind": sb.Kind, "created_ns": sb.CreatedNs, "app_data_bytes": len(sb.AppData), "placement": sb.Placement}
	if json.Valid(sb.ModelJSON) {
		v["model"] = json.RawMessage(sb.ModelJSON)
	}
	return v
}

// openInspected opens the image for inspect or its surgery. A live image
// (mounted, served, or open in another vlfs command, under any of its
// names) is refused, read-only views too: what a mount has not committed
// would make them wrong.
func openInspected(path string, readOnly bool) (device.Device, error) {
	dev, err := device.OpenFile(path, device.FileOptions{ReadOnly: readOnly})
	if errors.Is(err, device.ErrLocked) {
		return nil, fmt.Errorf("%s is live (mounted, served, or open in another vlfs command): inspect opens only an image nobody has open; unmount it first (vlfs umount MOUNTPOINT) (%v)", path, err)
	}
	return dev, err
}
