package crashtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/internal/fstest"
)

// TestKill: two SIGKILLs of a real FUSE daemon under an fsync-ing writer;
// every manifest entry must survive each.
func TestKill(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	bin := os.Getenv("VLFS_BINARY") // a prebuilt binary, else build one
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "vlfs")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/vlfs").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	dir := t.TempDir()
	res, err := Kill(KillConfig{Binary: bin, Dir: dir, Rounds: 2, Seed: 1, ImageSize: 32 << 20, Progress: testWriter{t}})
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
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
