// Command vlfs is the one binary of the project: it formats, mounts, checks
// and benchmarks vlfs images. Each subcommand lives in its own file.
//
// Exit codes: 0 success, 1 errors corrected (fsck), 2 usage error,
// 4 errors left uncorrected (fsck), 8 operational error.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes shared by every subcommand (fsck follows e2fsck).
const (
	exitOK        = 0
	exitCorrected = 1
	exitUsage     = 2
	exitUncorrect = 4
	exitFailure   = 8
)

// command is one subcommand: run gets the arguments after its name and
// returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands lists every subcommand. It is built once and never modified.
func commands() map[string]command {
	return map[string]command{
		"bench":   {"run a benchmark or paper experiment (vlfs bench help)", runBench},
		"cstar":   {"optimal write batch size c* for a disk (Carson & Setia)", runCstar},
		"disk":    {"logical-disk mode: ext4 or fuse2fs on the VLD (vlfs disk help)", runDisk},
		"fsck":    {"check an image (exit 0 clean, 4 errors left, 8 failure)", runFsck},
		"scrub":   {"read every file of a live mount so that damaged data (failing its checksum) is found and named (exit 0 none, 4 damaged files, 8 failure)", runScrub},
		"damage":  {"damage matrix: damage copies of an image block by block, repair each, check what survives", runDamage},
		"inspect": {"print an image's structures; --damage surgery for tests (vlfs inspect --help)", runInspect},
		"mkfs":    {"create and format an image (vlfs mkfs [--disk D] [--size S] IMAGE)", runMkfs},
		"mount":   {"mount an image with FUSE (vlfs mount [-o OPTS] [--background] IMAGE DIR)", runMount},
		"umount":  {"unmount a vlfs mount point and wait for the image to close", runUmount},
		"stats":   {"live counters of a mount, or static ones of an image (--json)", runStats},
		"compact": {"compact free space of an unmounted image (vlfs or logical disk) offline, with a progress bar", runCompact},
		"profile": {"measure a device's write cost by skip x think time (Bark): vlfs profile TARGET --out FILE", runProfile},

		"crashtest": {"crash-consistency test: --workloads seq1|seq2|seq3|compact, --workload FILE, or --kill N (docs/crashtest.md)", runCrashtest},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "vlfs: unknown command %q (try vlfs help)\n", args[0])
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: vlfs COMMAND [options]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
}
