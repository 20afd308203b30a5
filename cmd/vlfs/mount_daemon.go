package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// Environment of the daemon started by mount --background.
const (
	// readyEnv names the descriptor on which the daemon reports "ready PID"
	// or "error MESSAGE" to the process that started it.
	readyEnv = "VLFS_MOUNT_READY_FD"
	// binaryEnv overrides the binary that --background starts (tests run
	// from a test binary, which is not vlfs).
	binaryEnv = "VLFS_BINARY"
)

// mountForeground mounts and serves until the file system is unmounted.
func mountForeground(a *mountArgs, stdout, stderr io.Writer) int {
	ready := readyPipeFromEnv()
	if os.Getenv("PATH") == "" {
		os.Setenv("PATH", defaultPath) // bazil.org/fuse runs fusermount3 from PATH
	}
	logw, closeLog := a.logWriter(stderr)
	defer closeLog()
	logger := log.New(logw, "vlfs: ", log.LstdFlags)
	if a.logFile != "" {
		log.SetOutput(logw) // bazil.org/fuse reports fusermount3 output there
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "vlfs mount: %v\n", err)
		ready.fail(err)
		return exitFailure
	}
	dir, err := filepath.Abs(a.dir)
	if err != nil {
		return fail(err)
	}
	a.dir = dir
	ifMounted := fmt.Sprintf("unmount it first (vlfs umount %s) or choose another directory", dir)
	if err := checkMountPoint(dir, "vlfs umount", ifMounted); err != nil {
		return fail(err)
	}
	m, err := openImage(a, logger.Printf)
	if err != nil {
		return fail(err)
	}
	fo := a.fuse
	fo.Logf = logger.Printf
	fo.Compactor = m.compactor
	if a.debug {
		fo.Debug = func(m string) { logger.Print(m) }
	}
	loop, err := attachLoop(a, logger.Printf)
	if err != nil {
		m.close()
		return fail(err)
	}
	if loop != nil {
		// The mount holds the device too; it detaches itself once both
		// are gone (LO_FLAGS_AUTOCLEAR), whichever goes last.
		defer loop.Close()
		fo.BlockDevice = loop.Path
	}
	srv, err := fusefs.Mount(dir, m.fs, fo)
	if err != nil {
		m.close()
		return fail(fuseMountFailed(dir, err))
	}
	if stop, err := startCPUProfile(a.cpuProfile); err != nil {
		logger.Printf("cpu profile: %v", err)
	} else {
		defer stop()
	}
	sigs, stopSigs := stopSignals()
	defer stopSigs()
	if ready != nil {
		ready.ok()
	} else {
		mountedMessage(stdout, a, os.Getpid(), true)
	}
	// The first signal unmounts, the next aborts; then the image closes.
	return serveUntilEnded(srv.Wait, sigs,
		func(sig os.Signal, n int) bool { return onSignal(srv, sig, n, logw) },
		func() int { return closeFS(m, srv.Dir(), a.image, logw) })
}

// logWriter is where the daemon logs: --log FILE, else stderr.
func (a *mountArgs) logWriter(stderr io.Writer) (io.Writer, func()) {
	if a.logFile == "" {
		return stderr, func() {}
	}
	f, err := os.OpenFile(a.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mount: log file: %v; logging to stderr\n", err)
		return stderr, func() {}
	}
	return f, func() { f.Close() }
}

// onSignal unmounts (lazily if busy) on the first signal and aborts the
// connection on the next; false means give up without closing the image.
func onSignal(srv *fusefs.Server, sig os.Signal, n int, w io.Writer) bool {
	dir := srv.Dir()
	if n == 1 {
		fmt.Fprintf(w, "vlfs: %v: unmounting %s\n", sig, dir)
		err := fusefs.Unmount(dir, false)
		if errors.Is(err, fusefs.ErrBusy) {
			fmt.Fprintf(w, "vlfs: %s is busy (a file is open there or a working directory is inside): detaching it now; the image is closed when the last user leaves (signal again to force)\n", dir)
			err = fusefs.Unmount(dir, true)
		}
		if err != nil && !errors.Is(err, fusefs.ErrNotMounted) {
			fmt.Fprintf(w, "vlfs: %v\n", err)
		}
		return true
	}
	fmt.Fprintf(w, "vlfs: %v again: aborting the FUSE connection\n", sig)
	if err := srv.Abort(); err != nil {
		fmt.Fprintf(w, "vlfs: %v; exiting without closing the image (the next mount recovers it)\n", err)
		writeExitReport(exitReport{PID: os.Getpid(), Dir: dir, Clean: false,
			Error: fmt.Sprintf("the daemon gave up on %s (%v) without closing the image; the next mount recovers the last commit", dir, err)},
			func(f string, a ...any) { fmt.Fprintf(w, f+"\n", a...) })
		return false
	}
	return true
}

// closeFS closes the image once the mount has ended, logs how that went
// and leaves the same for vlfs umount (mount_exit.go).
func closeFS(m *mountedImage, dir, img string, w io.Writer) int {
	r := exitReport{PID: os.Getpid(), Dir: dir, Image: img, Clean: true}
	code := exitOK
	if err := m.close(); err != nil {
		r.Clean, r.Error = false, fmt.Sprintf("closing %s failed: %v; what was not committed before is lost, the next mount recovers the last commit", img, err)
		fmt.Fprintf(w, "vlfs: %s unmounted, but %s\n", dir, r.Error)
		code = exitFailure
	} else {
		fmt.Fprintf(w, "vlfs: %s unmounted; %s closed cleanly\n", dir, img)
	}
	writeExitReport(r, func(f string, a ...any) { fmt.Fprintf(w, f+"\n", a...) })
	return code
}

// mountBackground starts `vlfs mount` as a daemon and waits until it
// reports the mount ready (or why it failed).
func mountBackground(a *mountArgs, stdout, stderr io.Writer) int {
	cmd, r, err := a.startDaemon()
	if err != nil {
		fmt.Fprintf(stderr, "vlfs mount: starting the daemon: %v\n", err)
		return exitFailure
	}
	msg, _ := io.ReadAll(r) // until the daemon closes its end
	r.Close()
	line := strings.TrimSpace(string(msg))
	if pid, ok := strings.CutPrefix(line, "ready "); ok {
		go cmd.Wait() // reaps the daemon when run in-process (tests)
		n, _ := strconv.Atoi(pid)
		mountedMessage(stdout, a, n, false)
		return exitOK
	}
	werr := cmd.Wait()
	if m, ok := strings.CutPrefix(line, "error "); ok {
		fmt.Fprintf(stderr, "vlfs mount: %s\n", m)
	} else {
		fmt.Fprintf(stderr, "vlfs mount: the daemon exited (%v) before the mount was ready; run without --background to see why\n", werr)
	}
	return exitFailure
}

// startDaemon runs this binary's `mount` without --background in a new
// session, with a pipe for its readiness report.
func (a *mountArgs) startDaemon() (*exec.Cmd, *os.File, error) {
	exe, err := vlfsBinary()
	if err != nil {
		return nil, nil, err
	}
	args, err := a.daemonArgs()
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer w.Close()
	cmd := exec.Command(exe, args...)
	cmd.Dir = "/" // a daemon must not keep a directory busy
	cmd.Env = append(os.Environ(), readyEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		return nil, nil, err
	}
	return cmd, r, nil
}

// vlfsBinary is the binary to run as the daemon: $VLFS_BINARY, else this one.
func vlfsBinary() (string, error) {
	if exe := os.Getenv(binaryEnv); exe != "" {
		return exe, nil
	}
	return os.Executable()
}

// daemonArgs rebuilds the command line with absolute paths.
func (a *mountArgs) daemonArgs() ([]string, error) {
	img, err := filepath.Abs(a.image)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(a.dir)
	if err != nil {
		return nil, err
	}
	args := []string{"mount", "--clock", a.clock, "--batch", a.batch, "--compactor", a.compactor}
	if a.head != "" && a.head != "sim" {
		h, err := filepath.Abs(strings.TrimPrefix(a.head, "profile:"))
		if err != nil {
			return nil, err
		}
		args = append(args, "--head", "profile:"+h)
	}
	if len(a.opts) > 0 {
		args = append(args, "-o", strings.Join(a.opts, ","))
	}
	if a.logFile != "" {
		lf, err := filepath.Abs(a.logFile)
		if err != nil {
			return nil, err
		}
		args = append(args, "--log", lf)
	}
	if a.debug {
		args = append(args, "--debug")
	}
	if a.cpuProfile != "" {
		p, err := filepath.Abs(a.cpuProfile)
		if err != nil {
			return nil, err
		}
		args = append(args, "--cpuprofile", p)
	}
	return append(args, "--", img, dir), nil
}

// readyPipe reports readiness to the process that started the daemon.
type readyPipe struct{ f *os.File }

// readyPipeFromEnv returns the pipe named by readyEnv, or nil.
func readyPipeFromEnv() *readyPipe {
	fd, err := strconv.Atoi(os.Getenv(readyEnv))
	if err != nil || fd < 3 {
		return nil
	}
	os.Unsetenv(readyEnv)
	return &readyPipe{os.NewFile(uintptr(fd), "vlfs-ready")}
}

func (p *readyPipe) ok() {
	if p != nil {
		fmt.Fprintf(p.f, "ready %d\n", os.Getpid())
		p.f.Close()
	}
}

func (p *readyPipe) fail(err error) {
	if p != nil {
		fmt.Fprintf(p.f, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		p.f.Close()
	}
}
