package bench

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
	"testing"
)

// TestOwnSession: a workload started through ownSession leads a session of
// its own, apart from the bench's (and so from the in-process server's
// CPU group under autogroup), whatever SysProcAttr it came with.
func TestOwnSession(t *testing.T) {
	for _, attr := range []*syscall.SysProcAttr{nil, {Setpgid: false}} {
		cmd := exec.Command("sleep", "5")
		cmd.SysProcAttr = attr
		if err := ownSession(cmd).Start(); err != nil {
			t.Skipf("cannot start sleep: %v", err)
		}
		sid, err := unix.Getsid(cmd.Process.Pid)
		mine, _ := unix.Getsid(0)
		cmd.Process.Kill()
		cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if sid != cmd.Process.Pid || sid == mine {
			t.Fatalf("the workload's session is %d (its pid %d, the bench's session %d)", sid, cmd.Process.Pid, mine)
		}
	}
}
