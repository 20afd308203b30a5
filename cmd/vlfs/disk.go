package main

import (
	"fmt"
	"io"
	"sort"
)

// diskCommands are the subcommands of `vlfs disk`: the logical-disk mode,
// where an unmodified file system (ext4 over a loop device, or fuse2fs)
// runs on the Virtual Log Disk through one exported file. See
// docs/logical-disk.md.
func diskCommands() map[string]command {
	return map[string]command{
		"create": {"format a logical-disk image (placement fixed here)", runDiskCreate},
		"serve":  {"export an image as MOUNTPOINT/disk (+ MOUNTPOINT/stats) until unmounted", runDiskServe},
		"umount": {"unmount a served disk, refusing while a loop device or file system uses it", runDiskUmount},
	}
}

// runDisk dispatches `vlfs disk SUBCOMMAND [options]`.
func runDisk(args []string, stdout, stderr io.Writer) int {
	cmds := diskCommands()
	if len(args) == 0 {
		diskUsage(stderr, cmds)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "--help":
		diskUsage(stdout, cmds)
		return exitOK
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "vlfs disk: unknown subcommand %q (try vlfs disk help)\n", args[0])
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func diskUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: vlfs disk SUBCOMMAND [options]   (vlfs disk SUBCOMMAND -h for its options)")
	fmt.Fprintln(w, "Run an unmodified file system on the Virtual Log Disk:")
	fmt.Fprintln(w, "  vlfs disk create --size 1GiB disk.img && vlfs disk serve disk.img /mnt/vld")
	fmt.Fprintln(w, "  mkfs.ext4 /mnt/vld/disk && mount -o loop /mnt/vld/disk /mnt/x   (or: fuse2fs /mnt/vld/disk /mnt/x)")
	fmt.Fprintln(w, "subcommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
}
