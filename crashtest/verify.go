package crashtest

import (
	"fmt"
	"runtime/debug"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// Verify materialises crash state s, recovers it through the normal mount
// path, runs the full check and judges the recovered tree. A recovered
// state that passes must also stay usable: a probe file is written and
// fsync'd, the image unmounted, mounted and checked again, and the tree
// must be the judged one plus the probe (free-space maps rebuilt wrong by
// recovery would show here). A panic anywhere becomes a RulePanic verdict.
func (r *Recording) Verify(s device.State) (v Verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = Verdict{Rule: RulePanic, Detail: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	img, err := r.Dev.Image(s)
	if err != nil {
		return Verdict{Rule: RuleMount, Detail: fmt.Sprintf("building the crash image: %v", err)}
	}
	fs, err := vlfs.Mount(noClose{img}, mountOptions())
	if err != nil {
		return Verdict{Rule: RuleMount, Detail: err.Error()}
	}
	got, v := r.judgeMounted(fs, s)
	if !v.OK {
		fs.Close()
		return v
	}
	return afterRecovery(img, fs, got, v)
}

// judgeMounted checks a recovered file system and judges its tree.
func (r *Recording) judgeMounted(fs *vlfs.FS, s device.State) (Tree, Verdict) {
	if err := fs.Check(); err != nil {
		return nil, Verdict{Rule: RuleCheck, Detail: err.Error()}
	}
	got, err := snapshotTree(fs)
	if err != nil {
		return nil, Verdict{Rule: RuleRead, Detail: err.Error()}
	}
	return got, r.Oracle.Judge(got, s.Flushes)
}

// probeName is the file afterRecovery writes; no workload path has it.
const probeName = "crashtest-probe"

// afterRecovery writes a probe file into the recovered file system,
// unmounts, remounts and checks that the tree is got plus the probe.
func afterRecovery(img device.Device, fs *vlfs.FS, got Tree, v Verdict) Verdict {
	fail := func(format string, args ...any) Verdict {
		return Verdict{Rule: RuleAfter, Detail: fmt.Sprintf(format, args...)}
	}
	data := pattern(999, 0, 70000)
	err := writeProbe(fs, data)
	if cerr := fs.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail("writing a probe file after recovery: %v", err)
	}
	fs, err = vlfs.Mount(img, mountOptions())
	if err != nil {
		return fail("remount after recovery and a probe write: %v", err)
	}
	defer fs.Close()
	if err := fs.Check(); err != nil {
		return fail("check after recovery and a probe write: %v", err)
	}
	again, err := snapshotTree(fs)
	if err != nil {
		return fail("reading back after recovery and a probe write: %v", err)
	}
	if p, ok := again[probeName]; !ok || p.Data != string(data) {
		return fail("the probe file written after recovery is missing or wrong")
	}
	delete(again, probeName)
	if !again.Equal(got) {
		return fail("a probe write after recovery changed other files: %v", diff(again, got, 4))
	}
	return v
}

func writeProbe(fs *vlfs.FS, data []byte) error {
	a, err := fs.Create(vlfs.RootIno, probeName, 0o644, 0, 0)
	if err != nil {
		return err
	}
	if _, err := fs.Write(a.Ino, 0, data); err != nil {
		return err
	}
	return fs.Fsync(a.Ino, false)
}
