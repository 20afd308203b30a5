package vlfs

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// snapshot is a whole tree as path -> "dir", "link:target" or file contents.
type snapshot map[string]string

func takeSnapshot(t testing.TB, fs *FS) snapshot {
	t.Helper()
	s := snapshot{}
	var walk func(ino Ino, path string)
	walk = func(ino Ino, path string) {
		ents, err := fs.ReadDir(ino)
		if err != nil {
			t.Fatalf("readdir %s: %v", path, err)
		}
		for _, e := range ents[2:] {
			p := path + "/" + e.Name
			switch e.Mode {
			case 0o040000:
				s[p] = "dir"
				walk(e.Ino, p)
			case 0o120000:
				s[p] = "link:" + must(fs.Readlink(e.Ino)).ok(t)
			default:
				a := must(fs.GetAttr(e.Ino)).ok(t)
				buf := make([]byte, a.Size)
				n := must(fs.Read(e.Ino, 0, buf)).ok(t)
				s[p] = contentKey(buf[:n])
			}
		}
	}
	walk(RootIno, "")
	return s
}

// contentKey is how a snapshot holds a file's bytes: a digest, since
// files reach past 2 MiB (deepOffset).
func contentKey(b []byte) string {
	return fmt.Sprintf("%d bytes, sha256 %x", len(b), sha256.Sum256(b))
}

// TestCrashDurability runs a workload of changes and fsyncs on a
// recording device, then mounts crash images (every flush boundary,
// subsets of the writes after it, a torn write) and requires each to mount,
// pass Check, and show exactly one committed snapshot no older than the
// last fsync that returned before the crash point.
func TestCrashDurability(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	tiny := &cacheLimits{inodes: 1, iblks: 1, nodes: 1, dirty: 1}
	t.Run("default", func(t *testing.T) { crashRun(t, seed, crashOpts{deep: true}) })
	// Tiny caches and limits: blocks are written out between commits.
	t.Run("early-writeout", func(t *testing.T) { crashRun(t, seed+1, crashOpts{limits: tiny, deep: true}) })
	// Trees named by address, as images made before the node map.
	t.Run("fs-version-1", func(t *testing.T) {
		crashRun(t, seed+2, crashOpts{limits: tiny, deep: true, version: ondisk.FSVersionAddr})
	})
	// Mostly small writes to a few files, each fsync'd, with truncates and
	// renames between: version 3 commits most as log records, and every
	// fourth commit ends an epoch.
	t.Run("records", func(t *testing.T) {
		crashRun(t, seed+3, crashOpts{deep: true, writes: true, version: ondisk.FSVersionRecords, maxRecords: 3})
	})
}

// TestCrashDurabilityPinned replays early-writeout seeds that once failed
// (~4 runs in 60): an inode block written out between commits, covered by
// the next commit group, then superseded and freed by a commit that logged
// no group, was reused while recovery still checked it against that group's
// covers, so recovery discarded a durable commit (vld vlog.covered).
func TestCrashDurabilityPinned(t *testing.T) {
	tiny := &cacheLimits{inodes: 1, iblks: 1, nodes: 1, dirty: 1}
	for _, seed := range []int64{1795432849727326347, 1795432852414712502, 1795432856400275729} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { crashRun(t, seed, crashOpts{limits: tiny}) })
	}
}

// crashOpts vary crashRun: the cache limits (nil: the defaults), the
// file-system version (0: the default) and whether the workload also
// writes deep into files and truncates them (off for the pinned seeds,
// which replay the workload they failed with).
type crashOpts struct {
	limits  *cacheLimits
	version uint32
	deep    bool
	// writes: a workload of writes (writeHeavy) under Options.MaxRecords
	// maxRecords, which must commit some records.
	writes     bool
	maxRecords int
}

func crashRun(t *testing.T, seed int64, co crashOpts) {
	rng := rand.New(rand.NewSource(seed))
	base := newFormattedVersion(t, 8<<20, co.version)
	rec := device.NewCrash(base)
	o := Options{FlushInterval: time.Hour, DirtyLimitBytes: 8 << 10, MaxRecords: co.maxRecords}
	if seed%2 != 0 {
		o.WriteThroughBytes = 8 << 10 // large writes unbuffered (writethrough.go)
	}
	fs, err := Mount(noClose{rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	if co.limits != nil {
		fs.limits = *co.limits
	}
	snaps := []snapshot{takeSnapshot(t, fs)}
	acked := []int{rec.Flushes()} // flushes recorded when snapshot i was durable
	steps := 25
	if testing.Short() {
		steps = 8
	}
	w := crashWorkload{t: t, fs: fs, rng: rng, deep: co.deep, writes: co.writes}
	for range steps {
		w.changes(1 + rng.Intn(4))
		if err := fs.Fsync(w.someFile(), rng.Intn(2) == 0); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, takeSnapshot(t, fs))
		acked = append(acked, rec.Flushes())
	}
	w.changes(3) // never synced: may or may not survive
	if err := fs.Check(); err != nil {
		t.Fatal(err)
	}
	if rc := fs.Stats().RecordCommits; co.writes && rc == 0 {
		t.Fatal("a workload of writes committed no log record")
	}
	states := rec.States(rng, 6)
	t.Logf("%d commits, %d flushes, %d crash states", len(snaps)-1, rec.Flushes(), len(states))
	for _, s := range states {
		verifyCrashState(t, rec, s, snaps, acked)
		if t.Failed() {
			return
		}
	}
	if err := fs.Close(); err != nil {
		t.Fatal(err)
	}
}

func verifyCrashState(t *testing.T, rec *device.Crash, s device.State, snaps []snapshot, acked []int) {
	t.Helper()
	img, err := rec.Image(s)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Mount(img, Options{FlushInterval: time.Hour})
	if err != nil {
		t.Errorf("state %v: mount: %v", s, err)
		return
	}
	defer fs.Close()
	if err := fs.Check(); err != nil {
		t.Errorf("state %v: check: %v", s, err)
		return
	}
	got := takeSnapshot(t, fs)
	need := 0
	for i, k := range acked {
		if k <= s.Flushes {
			need = i
		}
	}
	for j := need; j < len(snaps); j++ {
		if maps.Equal(got, snaps[j]) {
			return
		}
	}
	t.Errorf("state %v: recovered tree matches no snapshot >= %d (fsync'd before the crash)\n got: %s\nwant: %s",
		s, need, summary(got), summary(snaps[need]))
}

func summary(s snapshot) string {
	var b strings.Builder
	for _, k := range sortedSnapKeys(s) {
		v := s[k]
		if len(v) > 12 {
			v = fmt.Sprintf("%q...(%d bytes)", v[:12], len(v))
		}
		fmt.Fprintf(&b, "%s=%s ", k, v)
	}
	return b.String()
}

func sortedSnapKeys(s snapshot) []string {
	ks := make([]string, 0, len(s))
	for k := range s {
		ks = append(ks, k)
	}
	slicesSort(ks)
	return ks
}

// crashWorkload makes random changes in a small tree.
type crashWorkload struct {
	t     *testing.T
	fs    *FS
	rng   *rand.Rand
	files []Ino
	n     int
	deep  bool // also write below the double-indirect root, and truncate
	// writes: nine changes in ten write to a file (of three), so that
	// commits of one file's small writes come back to back
	writes bool
}

func (w *crashWorkload) someFile() Ino {
	if len(w.files) == 0 {
		return RootIno
	}
	return w.files[w.rng.Intn(len(w.files))]
}

// deepOffset puts a write below the double-indirect root (past 12 direct
// and 509 single-indirect blocks), where the node map names the leaves.
const deepOffset = 2100 << 10

func (w *crashWorkload) changes(n int) {
	fs, t := w.fs, w.t
	for range n {
		w.n++
		name := fmt.Sprintf("f%d", w.rng.Intn(12))
		kinds := 6
		if w.deep {
			kinds = 7
		}
		k := w.rng.Intn(kinds)
		if w.writes && len(w.files) > 0 && w.rng.Intn(10) != 0 {
			k = 2 // a write
		}
		switch k {
		case 0, 1:
			a, err := fs.Create(RootIno, name, 0o644, 0, 0)
			if err == nil {
				w.files = append(w.files, a.Ino)
			}
		case 2, 3:
			if len(w.files) > 0 {
				data := []byte(strings.Repeat(fmt.Sprintf("<%d>", w.n), 1+w.rng.Intn(3000)))
				ino := w.someFile()
				off := int64(w.rng.Intn(20000))
				if w.deep && w.rng.Intn(4) == 0 {
					off += deepOffset
				}
				if _, err := fs.Write(ino, off, data); err != nil && ino != RootIno {
					t.Fatal(err)
				}
			}
		case 6:
			// Frees the deep blocks and the indirect blocks above them.
			if len(w.files) > 0 {
				ino := w.someFile()
				if _, err := fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: uint64(w.rng.Intn(20000))}); err != nil && ino != RootIno {
					t.Fatal(err)
				}
			}
		case 4:
			_ = fs.Rename(RootIno, name, RootIno, fmt.Sprintf("f%d", w.rng.Intn(12)), 0)
		case 5:
			_ = fs.Unlink(RootIno, name)
		}
	}
}
