package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vlfs/vlfs/internal/liveline"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/fusefs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// scrubResult is what `vlfs scrub --json` prints.
type scrubResult struct {
	Mount     string        `json:"mount"`
	FSVersion uint32        `json:"fs_version"`
	Files     int           `json:"files"`
	Bytes     int64         `json:"bytes"`
	Seconds   float64       `json:"seconds"`
	Damaged   []scrubDamage `json:"damaged"`
	// ChecksumErrors is the mount's count (vlfs stats) before and after:
	// the scrub's reads that failed their checksum, and anyone else's.
	ChecksumErrorsBefore int64    `json:"checksum_errors_before"`
	ChecksumErrorsAfter  int64    `json:"checksum_errors_after"`
	Errors               []string `json:"errors"` // files that could not be opened or read for another reason
	ExitCode             int      `json:"exit_code"`
}

// scrubDamage is a file with bytes that read as EIO.
type scrubDamage struct {
	Path string `json:"path"`
	// Ranges are the damaged byte ranges [from, to), block by block.
	Ranges [][2]int64 `json:"ranges"`
}

// runScrub is `vlfs scrub MOUNTPOINT`: read every regular file of a live
// mount, bypassing the page cache, so that the file system checks every
// data block against its checksum (version 4), and name every file with
// bytes that read as EIO. Exit 0: nothing damaged; 4: damaged files
// found; 8: the scrub could not run (not a vlfs mount).
func runScrub(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("scrub", flag.ContinueOnError)
	fl.SetOutput(stderr)
	quiet := fl.Bool("quiet", false, "no progress bar")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs scrub [--quiet] [--json] MOUNTPOINT")
		fmt.Fprintln(stderr, "exit codes: 0 no damage, 4 damaged files found, 8 the scrub could not run")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil || len(pos) != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	res, err := scrubMount(pos[0], *quiet, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs scrub: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return exitFailure
		}
		return res.ExitCode
	}
	for _, d := range res.Damaged {
		fmt.Fprintf(stdout, "DAMAGED %s: bytes", d.Path)
		for _, r := range d.Ranges {
			fmt.Fprintf(stdout, " %d..%d", r[0], r[1]-1)
		}
		fmt.Fprintln(stdout, " read as EIO (restore the file or delete it)")
	}
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "vlfs scrub: %s\n", e)
	}
	fmt.Fprintf(stdout, "%s: %d files, %s read in %.1f s, %d damaged\n", res.Mount, res.Files, sizeText(res.Bytes), res.Seconds, len(res.Damaged))
	if res.FSVersion < ondisk.FSVersionSums {
		fmt.Fprintf(stdout, "file-system version %d keeps no data checksums: the scrub proves only that every file reads (make a version-4 image to have damage found)\n", res.FSVersion)
	}
	return res.ExitCode
}

// scrubMount walks dir's files twice: once for the total (the progress
// bar's), once reading them.
func scrubMount(dir string, quiet bool, stderr io.Writer) (*scrubResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	before, err := fusefs.ReadLiveReport(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: not a vlfs mount point: %w", dir, err)
	}
	res := &scrubResult{Mount: abs, FSVersion: before.FSVersion, ChecksumErrorsBefore: before.ChecksumErrors,
		Damaged: []scrubDamage{}, Errors: []string{}}
	var total int64
	var paths []string
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
			return nil
		}
		if d.Type().IsRegular() && p != filepath.Join(abs, fusefs.DefaultStatsFile) {
			if info, err := d.Info(); err == nil {
				total += info.Size()
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	line := liveline.New(stderr)
	buf := device.AlignedBuffer(1 << 20)
	for _, p := range paths {
		if !quiet {
			line.Show(scrubProgress(res.Bytes, total, p), fmt.Sprint(res.Bytes*20/max(total, 1)))
		}
		n, dmg, err := scrubFile(p, buf)
		res.Bytes += n
		res.Files++
		if err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", p, err))
		}
		if len(dmg) > 0 {
			res.Damaged = append(res.Damaged, scrubDamage{Path: p, Ranges: dmg})
		}
	}
	if !quiet {
		line.Show(scrubProgress(res.Bytes, max(total, res.Bytes), "done"), "done")
	}
	line.End()
	res.Seconds = time.Since(start).Seconds()
	if after, err := fusefs.ReadLiveReport(abs); err == nil {
		res.ChecksumErrorsAfter = after.ChecksumErrors
	}
	switch {
	case len(res.Damaged) > 0:
		res.ExitCode = exitUncorrect
	case len(res.Errors) > 0:
		res.ExitCode = exitFailure
	}
	return res, nil
}

// scrubFile reads p with O_DIRECT (each read reaches the file system, not
// the page cache) and returns the bytes read and the block-sized ranges
// that read as EIO; it goes on past each.
func scrubFile(p string, buf []byte) (int64, [][2]int64, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var dmg [][2]int64
	var off int64
	const step = 4096
	for {
		n, err := f.ReadAt(buf, off)
		off += int64(n)
		if errors.Is(err, syscall.EIO) {
			// Find the damaged blocks of this chunk one by one.
			for end := off + int64(len(buf)) - int64(n); off < end; off += step {
				m, err := f.ReadAt(buf[:step], off)
				if errors.Is(err, syscall.EIO) {
					if k := len(dmg); k > 0 && dmg[k-1][1] == off {
						dmg[k-1][1] = off + step
					} else {
						dmg = append(dmg, [2]int64{off, off + step})
					}
					continue
				}
				if err != nil || m < step {
					return off + int64(m), dmg, nil // the end of the file (or an error past it)
				}
			}
			continue
		}
		if err == io.EOF {
			return off, dmg, nil
		}
		if err != nil {
			return off, dmg, err
		}
	}
}

// scrubProgress is the progress line: a bar, the share done, the file.
func scrubProgress(done, total int64, path string) string {
	const width = 30
	k := int(done * width / max(total, 1))
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < k {
			bar[i] = '#'
		}
	}
	if len(path) > 50 {
		path = "..." + path[len(path)-47:]
	}
	return fmt.Sprintf("scrub [%s] %3d%% %s/%s %s", bar, done*100/max(total, 1), sizeText(done), sizeText(total), path)
}
