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
	if err := fl.Parse(args); err != nil || fl.NArg() != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	dir, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "vlfs disk umount: %v\n", err)
		return exitFailure
	}
	if err := diskUmount(dir, !*noWait, stdout); err != nil {
		fmt.Fprintf(stderr, "vlfs disk umount: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func diskUmount(dir string, wait bool, w io.Writer) error {
	fstype, mounted, err := diskfs.MountType(dir)
	if err != nil {
		return err
	}
	if !mounted {
		return fmt.Errorf("%s is not mounted", dir)
	}
	if fstype != "fuse."+diskfs.Subtype {
		return fmt.Errorf("%s is a %s mount, not a vlfs disk; use umount(8)", dir, fstype)
	}
	pid := diskServerPID(dir) // 0 if the server is dead
	if err := diskfs.Unmount(dir); err != nil {
		return err
	}
	if wait && pid > 0 && pid != os.Getpid() {
		if err := waitDiskServer(pid); err != nil {
			return err
		}
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

// waitDiskServer waits until the server has closed the image and exited,
// so that the image can be served again at once.
func waitDiskServer(pid int) error {
	deadline := time.Now().Add(diskUmountWait)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || zombie(b) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server (pid %d) is still running %v after the unmount", pid, diskUmountWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombie reports whether a /proc/PID/stat line is of a finished process
// (the state follows the parenthesised command name).
func zombie(stat []byte) bool {
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
		}
	}
	return false
}
