package vlfs

import (
	"testing"
	"time"
)

// TestWallStats: every fsync is timed, and so is every commit and its two
// parts, every device write request and every flush.
func TestWallStats(t *testing.T) {
	// No background flush: every commit below is an fsync's.
	im := mountImage(t, newFormatted(t, 16<<20), Options{Logf: t.Logf, FlushInterval: time.Hour})
	fs := im.fs
	a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	before := fs.Stats()
	const n = 20
	for i := range n {
		must(fs.Write(a.Ino, int64(i)*4096, make([]byte, 4096))).ok(t)
		must(0, fs.Fsync(a.Ino, false)).ok(t)
	}
	must(0, fs.Sync()).ok(t)
	st := fs.Stats()
	fsync := st.Wall.Fsync.Sub(before.Wall.Fsync)
	commit := st.Wall.Commit.Sub(before.Wall.Commit)
	plan := st.Wall.CommitPlan.Sub(before.Wall.CommitPlan)
	vol := st.Wall.CommitVolume.Sub(before.Wall.CommitVolume)
	writes := st.Vol.WriteWall.Sub(before.Vol.WriteWall)
	flushes := st.Vol.FlushWall.Sub(before.Vol.FlushWall)
	if fsync.Count() != n+1 {
		t.Fatalf("%d fsync calls timed, want %d", fsync.Count(), n+1)
	}
	if got := st.Commits - before.Commits; commit.Count() != got || plan.Count() != got || vol.Count() != got {
		t.Fatalf("commits timed %d (plan %d, volume %d), counted %d", commit.Count(), plan.Count(), vol.Count(), got)
	}
	if got := st.Vol.Writes - before.Vol.Writes; writes.Count() != got || got == 0 {
		t.Fatalf("device writes timed %d, counted %d", writes.Count(), got)
	}
	if got := st.Vol.Flushes - before.Vol.Flushes; flushes.Count() != got || got < n {
		t.Fatalf("flushes timed %d, counted %d (want at least %d)", flushes.Count(), got, n)
	}
	// The spans nest: a commit holds its write-out, its plan and its
	// volume part, and the
	// fsyncs hold every commit here.
	out := st.Wall.CommitWriteOut.Sub(before.Wall.CommitWriteOut)
	if out.Count() != plan.Count() {
		t.Fatalf("write-outs timed %d, plans %d", out.Count(), plan.Count())
	}
	if out.SumNs+plan.SumNs+vol.SumNs > commit.SumNs || commit.SumNs > fsync.SumNs {
		t.Fatalf("spans do not nest: write-out %d + plan %d + volume %d ns, commits %d, fsyncs %d",
			out.SumNs, plan.SumNs, vol.SumNs, commit.SumNs, fsync.SumNs)
	}
}
