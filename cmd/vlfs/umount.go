package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	return runUnmount(fl, args, stderr, func(dir string) error { return umount(dir, *lazy, !*noWait, stdout) })
}

func umount(dir string, lazy, wait bool, w io.Writer) error {
	if err := checkMounted(dir, fusefs.IsVLFS, "vlfs"); err != nil {
		return err
	}
	pid := daemonPID(dir) // 0 if the mount is dead or not ours
	err := fusefs.Unmount(dir, lazy)
	if errors.Is(err, fusefs.ErrBusy) {
		return fmt.Errorf("%s is busy: a process has a file open there or its working directory inside "+
			"(find it with: fuser -vm %s); close it and retry, or detach now with: vlfs umount --lazy %s", dir, dir, dir)
	}
	if err != nil {
		return err
	}
	if wait && !lazy && serverElsewhere(pid) {
		if err := checkDaemonExit(dir, pid, w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "vlfs: unmounted %s\n", dir)
	return nil
}

// checkDaemonExit waits until the daemon has closed the image (written its
// tail record) and exited, so that the image can be mounted again at once,
// and fails unless it says it closed the image cleanly (mount_exit.go).
func checkDaemonExit(dir string, pid int, w io.Writer) error {
	waiting := func() { fmt.Fprintf(w, "vlfs: waiting for the daemon (pid %d) to close the image...\n", pid) }
	if !waitForExit(pid, umountWait, waiting) {
		return fmt.Errorf("the vlfs daemon (pid %d) is still running %v after the unmount", pid, umountWait)
	}
	r, ok := takeExitReport(pid)
	switch {
	case !ok:
		return fmt.Errorf("%s is unmounted, but its daemon (pid %d) exited without saying it closed the image (killed?): changes it had not committed are lost; the next mount recovers the last commit", dir, pid)
	case !r.Clean:
		return fmt.Errorf("%s is unmounted, but the daemon (pid %d) says: %s", dir, pid, r.Error)
	}
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
