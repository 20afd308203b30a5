package fusefs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestKillSUIDGID checks that set-ID bits are cleared as the kernel's own
// file systems clear them, now that the server does it
// (FUSE_HANDLE_KILLPRIV_V2): a write by an unprivileged user clears both
// bits of a group-executable file, a chown clears set-user-ID, and root's
// writes (CAP_FSETID) keep them. It also checks what the option is for: the
// GETXATTR of security.capability no longer comes with every write to a
// file without set-ID bits.
func TestKillSUIDGID(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (to write as another user)")
	}
	for _, wt := range []bool{false, true} {
		t.Run(fmt.Sprintf("writethrough=%v", wt), func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt, Options: fuseserve.Options{AllowOther: true}}})
			// Let nobody reach the mount: t.TempDir's directories are 0700.
			for d := m.Dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
				if err := os.Chmod(d, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			mk := func(name string, perm os.FileMode) string {
				p := filepath.Join(m.Dir, name)
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, perm); err != nil {
					t.Fatal(err)
				}
				return p
			}
			perm := func(p string) os.FileMode {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				return st.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid)
			}
			const ugx = os.ModeSetuid | os.ModeSetgid | 0o777

			// An unprivileged append.
			a := mk("a", ugx)
			cmd := exec.Command("/bin/sh", "-c", "printf y >> "+a)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("append as nobody: %v: %s", err, out)
			}
			if got := perm(a); got != 0o777 {
				t.Errorf("after an unprivileged write: mode %v, want %v", got, os.FileMode(0o777))
			}

			// chown clears set-user-ID, even by root.
			b := mk("b", os.ModeSetuid|0o755)
			if err := os.Chown(b, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			if got := perm(b); got != 0o755 {
				t.Errorf("after chown: mode %v, want %v", got, os.FileMode(0o755))
			}

			// root keeps them (CAP_FSETID).
			c := mk("c", ugx)
			if err := os.WriteFile(c, []byte("z"), 0); err != nil {
				t.Fatal(err)
			}
			if got := perm(c); got != ugx {
				t.Errorf("after root's write: mode %v, want %v", got, ugx)
			}

			// A file without set-ID bits: the kernel asks for
			// security.capability once, then marks the inode S_NOSEC.
			f, err := os.OpenFile(mk("d", 0o644), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte("z"), 0); err != nil {
				t.Fatal(err)
			}
			before := m.Server.Counters()["getxattr"].Count
			for i := range 10 {
				if _, err := f.WriteAt([]byte("z"), int64(i)); err != nil {
					t.Fatal(err)
				}
			}
			if n := m.Server.Counters()["getxattr"].Count - before; n != 0 {
				t.Errorf("10 writes sent %d GETXATTR requests, want 0", n)
			}
		})
	}
}
