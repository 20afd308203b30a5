package crashtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
)

// TestKill: two SIGKILLs of a real FUSE daemon under an fsync-ing writer;
// every manifest entry must survive each. Then the kill test's mutation
// test, on the same binary (built once).
func TestKill(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	bin := vlfsBinary(t)
	t.Run("fsync", func(t *testing.T) {
		res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 2, Seed: 1, Progress: testWriter{t}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", res)
		for _, f := range res.Failures {
			t.Error(f)
		}
		if res.Files == 0 || res.Verified < res.Files {
			t.Errorf("nothing was acknowledged or verified: %+v", res)
		}
		if res.FullRounds > 0 {
			t.Errorf("%d of %d rounds found the image full: they wrote nothing new", res.FullRounds, res.Rounds)
		}
	})
	t.Run("full-delete", func(t *testing.T) {
		res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 3, Seed: 1, Workload: WorkloadFullDelete, Progress: testWriter{t}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", res)
		for _, f := range res.Failures {
			t.Error(f)
		}
		if res.Filled == 0 || res.Deleted == 0 {
			t.Errorf("nothing was filled or no delete acknowledged: %+v", res)
		}
		if res.RoomCommits == 0 {
			t.Errorf("no commit was split to make room: the kills did not land among split commits: %+v", res)
		}
	})
	t.Run("overwrite", func(t *testing.T) {
		res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 3, Seed: 1, Workload: WorkloadOverwrite, Progress: testWriter{t}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", res)
		for _, f := range res.Failures {
			t.Error(f)
		}
		if res.Files != overwriteFiles {
			t.Errorf("%d files in the manifest, want %d", res.Files, overwriteFiles)
		}
		if res.Replayed == 0 {
			t.Errorf("no recovery after a kill replayed a log record: the kills did not land among record commits: %+v", res)
		}
	})
	t.Run("mutation-unsynced-acks", func(t *testing.T) { killCatchesUnsyncedAcks(t, bin) })
	t.Run("mutation-unsynced-overwrites", func(t *testing.T) {
		res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 2, Seed: 1, Workload: WorkloadOverwrite,
			MaxRun: 200 * time.Millisecond, Progress: testWriter{t}, noSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Failures) == 0 {
			t.Fatalf("overwrites acknowledged without a sync, and the kill test reported no failure: %+v", res)
		}
		t.Logf("first failure: %s", res.Failures[0])
	})
	t.Run("mutation-unsynced-deletes", func(t *testing.T) { killCatchesUnsyncedDeletes(t, bin) })
}

// killCatchesUnsyncedAcks is the kill test's mutation test: a writer that
// acknowledges files without fsync (as if the daemon acked fsync without
// syncing) loses them to the SIGKILL, since the daemon commits on its own
// only every 5 s, and the harness must say so. The image is large enough
// that the writer never fills it (a full image makes vlfs commit, which
// would make the unsynced files durable after all).
func killCatchesUnsyncedAcks(t *testing.T, bin string) {
	res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 1, Seed: 1, ImageSize: 256 << 20,
		MaxRun: 200 * time.Millisecond, Progress: testWriter{t}, noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rounds %d, files %d, verified %d, %d failures", res.Rounds, res.Files, res.Verified, len(res.Failures))
	if res.Files == 0 {
		t.Fatalf("the writer acknowledged nothing before the kill: the mutation was not exercised: %+v", res)
	}
	if len(res.Failures) == 0 {
		t.Fatalf("%d files acknowledged without fsync, and the kill test reported no failure", res.Files)
	}
	t.Logf("first failure: %s", res.Failures[0])
}

// vlfsBinary returns $VLFS_BINARY (a prebuilt binary) or builds one.
func vlfsBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("VLFS_BINARY"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "vlfs")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/vlfs").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// killCatchesUnsyncedDeletes is the full-delete workload's mutation test:
// deletes acknowledged without the directory fsync come back after the
// kill (the daemon commits on its own only every 5 s), and the harness
// must say so.
func killCatchesUnsyncedDeletes(t *testing.T, bin string) {
	// The mutated writer only deletes, so nothing but the daemon's 5 s
	// flush could commit its deletes, and a round runs at most 1 s: every
	// batch acknowledged is lost. Three rounds so that one acknowledges a
	// batch (up to 410 deletes) before its kill.
	res, err := Kill(KillConfig{Binary: bin, Dir: t.TempDir(), Rounds: 3, Seed: 1, Workload: WorkloadFullDelete,
		MaxRun: time.Second, Progress: testWriter{t}, noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted == 0 {
		t.Fatalf("no delete was acknowledged before the kill: the mutation was not exercised: %+v", res)
	}
	if len(res.Failures) == 0 {
		t.Fatalf("%d deletes acknowledged without fsync, and the kill test reported no failure", res.Deleted)
	}
	t.Logf("first failure: %s", res.Failures[0])
}
