package bench

import (
	"os/exec"
	"syscall"
)

// ownSession makes cmd, a workload the peers bench runs against a target
// (fio, stress-ng, sqlite3), start in a session of its own, as a user's
// application runs apart from the daemons that serve its file system.
//
// Linux's scheduler shares the CPU between sessions before it shares it
// between their threads (autogroup, /proc/sys/kernel/sched_autogroup_enabled,
// on by default and on here). Started from the bench's own session, stress-ng's
// mix (15 busy processes on 2 cores) shared one group with the file-system
// server running in the bench process, which then got a fifteenth of the CPU
// that `vlfs mount --background` (a session of its own, as fuse2fs, which
// daemonizes, and a systemd service have) gets: commits ran 20 times slower and
// the mix's fallocate stressor made 0.4 operations a second in the bench
// against 4.4-8.8 through a daemon mount, in the same minutes. The servers all
// stay in the bench's session (vlfs in process, the loopback as a child).
func ownSession(cmd *exec.Cmd) *exec.Cmd {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	return cmd
}
