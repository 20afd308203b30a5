package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vlfs/vlfs/internal/mountinfo"
)

// What `vlfs umount` and `vlfs disk umount` share.

// runUnmount runs an unmount command whose flags are defined on fl: one
// operand, MOUNTPOINT, made absolute and handed to unmount. A bad command
// line exits with exitUsage; a failure is printed under the command's
// name (fl.Name()) and exits with exitFailure.
func runUnmount(fl *flag.FlagSet, args []string, stderr io.Writer, unmount func(dir string) error) int {
	if err := fl.Parse(args); err != nil || fl.NArg() != 1 {
		if err == nil {
			fl.Usage()
		}
		return exitUsage
	}
	dir, err := filepath.Abs(fl.Arg(0))
	if err == nil {
		err = unmount(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vlfs %s: %v\n", fl.Name(), err)
		return exitFailure
	}
	return exitOK
}

// checkMounted refuses a dir that is not a mount point, or one whose type
// is not ours (kind names ours in the message).
func checkMounted(dir string, ours func(fstype string) bool, kind string) error {
	fstype, mounted, err := mountinfo.Type(dir)
	if err != nil {
		return err
	}
	if !mounted {
		return fmt.Errorf("%s is not mounted", dir)
	}
	if !ours(fstype) {
		return fmt.Errorf("%s is a %s mount, not %s; use umount(8)", dir, fstype, kind)
	}
	return nil
}

// serverElsewhere reports whether pid, a server's as its stats file gave
// it, is another process that can be waited for: not 0 (the mount is dead
// or not ours) nor this process (a server run in-process, in tests).
func serverElsewhere(pid int) bool { return pid > 0 && pid != os.Getpid() }

// waitForExit waits until the server pid, whose mount has just ended, has
// closed its image and exited, so that the image can be used again at
// once; false means it still runs after limit. waiting, if not nil, is
// called once when the wait has lasted a second.
func waitForExit(pid int, limit time.Duration, waiting func()) bool {
	deadline := time.Now().Add(limit)
	told := waiting == nil
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		if !told && time.Until(deadline) < limit-time.Second {
			waiting()
			told = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
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
