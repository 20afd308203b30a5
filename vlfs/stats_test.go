package vlfs

import (
	"testing"
	"time"
)

// TestWallStats: every fsync is timed, and so is every commit and its two
// parts, with the device flush inside the volume part.
func TestWallStats(t *testing.T) {
	im := newImage(t, 16<<20)
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
	w := st.Wall
	fsyncs := w.Fsync.Sub(before.Wall.Fsync).Count()
	commits := w.Commit.Sub(before.Wall.Commit).Count()
	flushes := st.Vol.FlushWall.Sub(before.Vol.FlushWall).Count()
	if fsyncs != n+1 {
		t.Fatalf("%d fsync calls timed, want %d", fsyncs, n+1)
	}
	if got := st.Commits - before.Commits; commits != got || w.CommitPlan.Count() != w.Commit.Count() || w.CommitVolume.Count() != w.Commit.Count() {
		t.Fatalf("commits timed %d (plan %d, volume %d), counted %d", commits, w.CommitPlan.Count(), w.CommitVolume.Count(), got)
	}
	if got := st.Vol.Flushes - before.Vol.Flushes; flushes != got || flushes < n {
		t.Fatalf("flushes timed %d, counted %d (want at least %d)", flushes, got, n)
	}
	if st.Vol.WriteWall.Count() == 0 {
		t.Fatalf("no device write timed after %d fsyncs of new data", n)
	}
	// A commit holds its parts, and an fsync its commit: means nest.
	plan, vol, whole := w.CommitPlan.Summary().MeanUs, w.CommitVolume.Summary().MeanUs, w.Commit.Summary().MeanUs
	if plan+vol > whole*1.001 || whole > w.Fsync.Summary().MeanUs*float64(fsyncs)/float64(commits)*1.001+1 {
		t.Fatalf("means do not nest: plan %.1f + volume %.1f µs, commit %.1f, fsync %.1f", plan, vol, whole, w.Fsync.Summary().MeanUs)
	}
	if w.Fsync.Quantile(0.5) <= 0 || w.Fsync.Quantile(0.5) > time.Minute {
		t.Fatalf("fsync median %v", w.Fsync.Quantile(0.5))
	}
}
