package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vlfs/vlfs/diskfs"
)

// diskUmountWait bounds how long `vlfs disk umount` waits for the server to
// close the image.
const diskUmountWait = time.Minute

func runDiskUmount(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("disk umount", flag.ContinueOnError)
	fl.SetOutput(stderr)
	noWait := fl.Bool("no-wait", false, "do not wait for the server to close the image")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs disk umount [--no-wait] MOUNTPOINT")
		fl.PrintDefaults()
	}
	return runUnmount(fl, args, stderr, func(dir string) error { return diskUmount(dir, !*noWait, stdout) })
}

func diskUmount(dir string, wait bool, w io.Writer) error {
	isDisk := func(fstype string) bool { return fstype == "fuse."+diskfs.Subtype }
	if err := checkMounted(dir, isDisk, "a vlfs disk"); err != nil {
		return err
	}
	pid := diskServerPID(dir) // 0 if the server is dead
	if err := diskfs.Unmount(dir); err != nil {
		return err
	}
	// The server has closed the image once it has exited, so that the
	// image can be served again at once.
	if wait && serverElsewhere(pid) && !waitForExit(pid, diskUmountWait, nil) {
		return fmt.Errorf("the server (pid %d) is still running %v after the unmount", pid, diskUmountWait)
	}
	fmt.Fprintf(w, "vlfs: unmounted %s\n", dir)
	return nil
}

// diskServerPID reads the serving process from the stats file.
func diskServerPID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, diskfs.StatsFile))
	if err != nil {
		return 0
	}
	var r diskfs.Report
	if json.Unmarshal(b, &r) != nil {
		return 0
	}
	return r.PID
}
