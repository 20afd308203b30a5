package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// fsckResult is what `vlfs fsck --json` prints. Errors repeats the
// findings (and any operational failure) as text lines.
type fsckResult struct {
	Image    string         `json:"image"`
	Clean    bool           `json:"clean"`
	Errors   []string       `json:"errors"`
	Findings []vlfs.Finding `json:"findings"`
	Repaired bool           `json:"repaired"`
	Fixed    []string       `json:"fixed"`
	Left     []vlfs.Finding `json:"left"`
	ExitCode int            `json:"exit_code"`
}

// emptyLists makes every list [] rather than null in --json, whichever
// path filled (or did not fill) it: a script reads one shape.
func (r *fsckResult) emptyLists() {
	r.Errors = nonNil(r.Errors)
	r.Findings = nonNil(r.Findings)
	r.Fixed = nonNil(r.Fixed)
	r.Left = nonNil(r.Left)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// runFsck checks an image: recovery (as a mount would do it, without
// writing), the VLD invariants and the file system's: reachability, link
// counts, sizes, checksums. With --repair it fixes what is safe to fix
// (vlfs.Repair) through one ordinary commit. Exit codes follow e2fsck: 0
// clean, 1 errors corrected, 4 errors left, 8 operational error.
func runFsck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fsck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	repair := fl.Bool("repair", false, "fix what is safe to fix: link counts, lost+found, leaked blocks (docs/fsck.md)")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs fsck [--repair] [--json] IMAGE")
		fmt.Fprintln(stderr, "exit codes: 0 clean, 1 errors corrected, 4 errors left, 8 operational error or not a vlfs image")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return exitUsage
	}
	res := fsckResult{Image: fl.Arg(0)} // lists made [] for --json by emptyLists
	if *repair {
		res.ExitCode = repairImage(fl.Arg(0), &res)
	} else {
		res.ExitCode = fsckImage(fl.Arg(0), &res)
	}
	if *asJSON {
		res.emptyLists()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(stderr, "vlfs fsck:", err)
			return exitFailure
		}
		return res.ExitCode
	}
	printFsck(stdout, &res, *repair)
	return res.ExitCode
}

func printFsck(w io.Writer, res *fsckResult, repair bool) {
	for _, e := range res.Errors {
		fmt.Fprintln(w, e)
	}
	for _, f := range res.Fixed {
		fmt.Fprintln(w, "fixed:", f)
	}
	for _, f := range res.Left {
		if repair {
			fmt.Fprintln(w, "left:", f)
		}
	}
	switch {
	case res.Clean:
		fmt.Fprintf(w, "%s: clean\n", res.Image)
	case res.ExitCode == exitCorrected:
		fmt.Fprintf(w, "%s: %d problems found, all corrected\n", res.Image, len(res.Findings))
	case res.ExitCode == exitUncorrect && !repair:
		fmt.Fprintf(w, "%s: %d problems found; run vlfs fsck --repair %s\n", res.Image, len(res.Findings), res.Image)
	case res.ExitCode == exitUncorrect:
		fmt.Fprintf(w, "%s: %d problems left that --repair cannot fix safely\n", res.Image, len(res.Left))
	}
}

// fsckImage checks the image read-only.
func fsckImage(path string, res *fsckResult) int {
	dev, code := openFsckImage(path, true, res)
	if dev == nil {
		return code
	}
	fds, err := vlfs.CheckDevice(dev, vlfs.Options{ReadOnly: true})
	if err != nil {
		res.Errors = append(res.Errors, fsckError(path, err))
		return exitFailure
	}
	res.Findings, res.Left = fds, fds
	for _, f := range fds {
		res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", path, f))
	}
	if len(fds) > 0 {
		return exitUncorrect
	}
	res.Clean = true
	return exitOK
}

// repairImage runs vlfs.Repair on the image opened read-write.
func repairImage(path string, res *fsckResult) int {
	dev, code := openFsckImage(path, false, res)
	if dev == nil {
		return code
	}
	defer dev.Close()
	r, err := vlfs.Repair(dev, vlfs.Options{})
	if r != nil {
		res.Findings, res.Fixed, res.Left = r.Found, r.Fixed, r.Left
		res.Repaired = len(r.Fixed) > 0
	}
	for _, f := range res.Findings {
		res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", path, f))
	}
	if err != nil {
		res.Errors = append(res.Errors, fsckError(path, err))
		return exitFailure
	}
	switch {
	case len(res.Left) > 0:
		return exitUncorrect
	case len(res.Findings) > 0:
		return exitCorrected
	}
	res.Clean = true
	return exitOK
}

// fsckError says why fsck could not check or repair at all (exit 8). An
// image that is not vlfs gets no advice to repair it: there is nothing to
// repair (e2fsck says the same of a bad magic number).
func fsckError(path string, err error) string {
	if errors.Is(err, vlfs.ErrNotVLFS) {
		return fmt.Sprintf("%s: not a vlfs image, nothing to check (%v)", path, err)
	}
	return fmt.Sprintf("%s: %v", path, err)
}

// openFsckImage opens the image file, saying why not in res.
func openFsckImage(path string, readOnly bool, res *fsckResult) (device.Device, int) {
	dev, err := device.OpenFile(path, device.FileOptions{ReadOnly: readOnly})
	if err == nil {
		return dev, exitOK
	}
	res.Errors = append(res.Errors, fmt.Sprintf("cannot open the image: %v", err)) // err names the path
	if errors.Is(err, device.ErrLocked) {
		res.Errors = append(res.Errors, "the image is mounted: unmount it first (vlfs umount MOUNTPOINT)")
	}
	return nil, exitFailure
}
