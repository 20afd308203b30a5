package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

func runStats(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("stats", flag.ContinueOnError)
	fl.SetOutput(stderr)
	asJSON := fl.Bool("json", false, "print JSON (the format of MOUNTPOINT/.vlfs-stats, see docs/fuse.md)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs stats [--json] MOUNTPOINT|IMAGE")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil || len(pos) != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	r, err := statsOf(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "vlfs stats: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs stats: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// statsOf reads live counters from a mount point, or opens an image
// read-only; an image that is mounted is read through its mount.
func statsOf(target string) (fusefs.Report, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return fusefs.Report{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return fusefs.Report{}, err
	}
	if st.IsDir() {
		return liveStats(abs)
	}
	r, err := imageStats(abs)
	if errors.Is(err, device.ErrLocked) {
		if dir, ok := mountOfImage(abs); ok {
			return liveStats(dir)
		}
		return r, fmt.Errorf("%s is in use by another process and no mount of it was found", target)
	}
	return r, err
}

// liveStats reads the mount's virtual stats file.
func liveStats(dir string) (fusefs.Report, error) { return fusefs.ReadLiveReport(dir) }

// imageStats opens an unmounted image read-only.
func imageStats(img string) (fusefs.Report, error) {
	dev, err := device.OpenFile(img, device.FileOptions{ReadOnly: true})
	if err != nil {
		return fusefs.Report{}, err
	}
	fsys, err := vlfs.Mount(dev, vlfs.Options{ReadOnly: true})
	if err != nil {
		dev.Close()
		return fusefs.Report{}, explainMountError(img, err)
	}
	r := fusefs.ReportOf(fsys.Stats())
	r.Image = img
	if err := fsys.Close(); err != nil {
		return r, fmt.Errorf("closing %s: %w", img, err)
	}
	return r, nil
}

// mountOfImage finds where an image is mounted: vlfs mount names the image
// as the mount's source (fsname).
func mountOfImage(img string) (string, bool) {
	dirs, err := fusefs.MountsOf(img)
	if err != nil || len(dirs) == 0 {
		return "", false
	}
	return dirs[0], true
}
