package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// umountWait bounds how long umount waits for the daemon to close the image.
const umountWait = 2 * time.Minute

func runUmount(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("umount", flag.ContinueOnError)
	fl.SetOutput(stderr)
	lazy := fl.Bool("lazy", false, "detach now even if busy; the image is closed when the last user leaves")
	noWait := fl.Bool("no-wait", false, "do not wait for the daemon to close the image")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs umount [--lazy] [--no-wait] MOUNTPOINT")
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
		fmt.Fprintf(stderr, "vlfs umount: %v\n", err)
		return exitFailure
	}
	if err := umount(dir, *lazy, !*noWait, stdout); err != nil {
		fmt.Fprintf(stderr, "vlfs umount: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func umount(dir string, lazy, wait bool, w io.Writer) error {
	fstype, mounted, err := fusefs.MountType(dir)
	if err != nil {
		return err
	}
	if !mounted {
		return fmt.Errorf("%s is not mounted", dir)
	}
	if !fusefs.IsVLFS(fstype) {
		return fmt.Errorf("%s is a %s mount, not vlfs; use umount(8)", dir, fstype)
	}
	pid := daemonPID(dir) // 0 if the mount is dead or not ours
	err = fusefs.Unmount(dir, lazy)
	if errors.Is(err, fusefs.ErrBusy) {
		return fmt.Errorf("%s is busy: a process has a file open there or its working directory inside "+
			"(find it with: fuser -vm %s); close it and retry, or detach now with: vlfs umount --lazy %s", dir, dir, dir)
	}
	if err != nil {
		return err
	}
	if wait && !lazy && pid > 0 && pid != os.Getpid() {
		if err := waitForExit(pid, w); err != nil {
			return err
		}
		r, ok := takeExitReport(pid)
		switch {
		case !ok:
			return fmt.Errorf("%s is unmounted, but its daemon (pid %d) exited without saying it closed the image (killed?): changes it had not committed are lost; the next mount recovers the last commit", dir, pid)
		case !r.Clean:
			return fmt.Errorf("%s is unmounted, but the daemon (pid %d) says: %s", dir, pid, r.Error)
		}
	}
	fmt.Fprintf(w, "vlfs: unmounted %s\n", dir)
	return nil
}

// daemonPID reads the serving process from the mount's stats file.
func daemonPID(dir string) int {
	r, err := fusefs.ReadLiveReport(dir)
	if err != nil {
		return 0
	}
	return r.PID
}

// waitForExit waits until the daemon has closed the image (written its
// tail record) and exited, so that the image can be mounted again at once.
func waitForExit(pid int, w io.Writer) error {
	deadline := time.Now().Add(umountWait)
	told := false
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the vlfs daemon (pid %d) is still running %v after the unmount", pid, umountWait)
		}
		if !told && time.Until(deadline) < umountWait-time.Second {
			fmt.Fprintf(w, "vlfs: waiting for the daemon (pid %d) to close the image...\n", pid)
			told = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// processAlive reports whether pid runs (a zombie has finished).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
