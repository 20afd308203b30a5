package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runMetaStorm creates, stats and unlinks PeersSizes.MetaFiles empty files
// in one directory, one thread, each phase timed on its own. A create is
// open(O_CREAT|O_EXCL) plus close. The create phase stops at
// PeersSizes.MetaLimit (fuse2fs's directories are linear lists: its
// creates slow down in proportion to the directory's size, and 100,000
// would take the best part of an hour); the row then says how many files
// it made (meta_files), and the stat and unlink phases work on those.
func runMetaStorm(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	n := cfg.Sizes.MetaFiles
	names := make([]string, n)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("m%07d", i))
	}
	phases := []struct {
		workload string
		op       func(string) error
	}{
		{"meta-create", createEmpty},
		{"meta-stat", func(p string) error { _, err := os.Lstat(p); return err }},
		{"meta-unlink", os.Remove},
	}
	var out []peerResult
	limit := cfg.Sizes.MetaLimit
	for _, ph := range phases {
		cfg.Logf("peers: %s: %s x %d", t.name(), ph.workload, len(names))
		r, err := measured(t, func() (peerResult, error) { return metaPhase(ph.workload, names, ph.op, limit) })
		if err != nil {
			return nil, err
		}
		if limit > 0 && int(r.ops) < n {
			cfg.Logf("peers: %s: %s stopped after %v at %d of %d files", t.name(), ph.workload, limit, r.ops, n)
		}
		names, limit = names[:r.ops], 0 // stat and unlink what was created
		r.extra = withKey(r.extra, "meta_files", r.ops)
		out = append(out, r)
	}
	return out, nil
}

func withKey(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

// metaPhase applies op to each name in turn, stopping early once limit
// (if not 0) has passed.
func metaPhase(workload string, names []string, op func(string) error, limit time.Duration) (peerResult, error) {
	var lat latencies
	lat.ms = make([]float64, 0, len(names))
	start := time.Now()
	for i, p := range names {
		if limit > 0 && i%64 == 0 && time.Since(start) > limit {
			break
		}
		t0 := time.Now()
		if err := op(p); err != nil {
			return peerResult{}, fmt.Errorf("%s: %w", workload, err)
		}
		lat.add(t0)
	}
	return lat.result(workload, 0, time.Since(start)), nil
}

func createEmpty(p string) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
