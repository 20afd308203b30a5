package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// fsckResult is what `vlfs fsck --json` prints.
type fsckResult struct {
	Image    string   `json:"image"`
	Clean    bool     `json:"clean"`
	Errors   []string `json:"errors"`
	Repaired bool     `json:"repaired"`
	ExitCode int      `json:"exit_code"`
}

// runFsck checks an image: recovery (as a mount would do it, without
// writing), the VLD invariants and the file system's: reachability, link
// counts, sizes, checksums. Exit codes follow e2fsck: 0 clean, 1 errors
// corrected, 4 errors left, 8 operational error.
func runFsck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fsck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	repair := fl.Bool("repair", false, "fix what is safe to fix (not available yet: reports only)")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs fsck [--repair] [--json] IMAGE")
		fmt.Fprintln(stderr, "exit codes: 0 clean, 1 errors corrected, 4 errors left, 8 operational error")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return exitUsage
	}
	res := fsckResult{Image: fl.Arg(0), Errors: []string{}}
	res.ExitCode = fsckImage(fl.Arg(0), &res)
	if *repair && !res.Clean && res.ExitCode == exitUncorrect {
		res.Errors = append(res.Errors, "--repair: automatic repair is not implemented yet; nothing was changed")
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
		return res.ExitCode
	}
	for _, e := range res.Errors {
		fmt.Fprintln(stdout, e)
	}
	if res.Clean {
		fmt.Fprintf(stdout, "%s: clean\n", res.Image)
	}
	return res.ExitCode
}

func fsckImage(path string, res *fsckResult) int {
	dev, err := device.OpenFile(path, device.FileOptions{ReadOnly: true})
	if err != nil {
		res.Errors = append(res.Errors, fmt.Sprintf("cannot open %s: %v", path, err))
		if errors.Is(err, device.ErrLocked) {
			res.Errors = append(res.Errors, "the image is mounted: unmount it first (vlfs umount MOUNTPOINT)")
		}
		return exitFailure
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{ReadOnly: true})
	if err != nil {
		dev.Close()
		res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", path, err))
		if isDamage(err) {
			return exitUncorrect
		}
		return exitFailure
	}
	defer fs.Close()
	if err := fs.Check(); err != nil {
		res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", path, err))
		return exitUncorrect
	}
	res.Clean = true
	return exitOK
}

// isDamage tells damage on the image from failures to read it at all.
func isDamage(err error) bool {
	return errors.Is(err, vlfs.ErrCorrupt) || errors.Is(err, vlfs.ErrNeedsRepair) ||
		errors.Is(err, vld.ErrCorrupt) || errors.Is(err, vld.ErrNotFormatted)
}
