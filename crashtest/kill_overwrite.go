package crashtest

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// The overwrite kill workload (KillConfig.Workload = WorkloadOverwrite,
// issue 33): a few files of fixed size are overwritten in place, whole,
// each write followed by fdatasync or fsync, over and over. On file-system
// version 3 each such commit is a log record (the data and one record; the
// blocks that point at the data are written at a later full commit), so
// the SIGKILLs land between records, inside epochs and across the full
// commits that end them, through the kernel's FUSE path (its SETATTR of
// times before the fsync included).
//
// The oracle: an acknowledged overwrite is what the file reads afterwards.
// The one in flight at the kill (written, its sync not returned) may have
// reached the disk in part: the kernel's writeback sends a write's pages
// in several requests and a background commit may fall between them, so
// each block of that file must hold the old or the new content, and what
// it holds becomes the file's content from then on.

// Overwrite files: overwriteFiles of overwriteBlocks blocks each.
const (
	overwriteFiles  = 6
	overwriteBlocks = 24
	overwritePrefix = "ow-"
)

// overwriteData is an overwrite file's content for this seed.
func overwriteData(seed int64) []byte {
	b := make([]byte, overwriteBlocks*4096)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// overwriter is the round's work: create the files (the first round),
// then overwrite them until the daemon dies.
type overwriter struct {
	k     *killer
	seeds []int64

	workEnd
	mu       sync.Mutex
	acked    map[string]int64 // this round's acknowledged overwrites (last per file)
	inflight string           // the file being overwritten, "" if none
	newSeed  int64
	n        int
}

func newOverwriter(k *killer) *overwriter {
	w := &overwriter{k: k, acked: map[string]int64{}}
	for range 20000 {
		w.seeds = append(w.seeds, k.rng.Int63())
	}
	return w
}

func overwriteName(i int) string { return fmt.Sprintf("%s%d", overwritePrefix, i) }

func (w *overwriter) loop() {
	for i, seed := range w.seeds {
		name := overwriteName(i % overwriteFiles)
		if _, ok := w.k.manifest[name]; !ok && w.acked[name] == 0 {
			// Not created yet (the first round): a new file, fsync'd
			// (even by the noSync mutation, which is about overwrites).
			if err := w.stop(writeSynced(filepath.Join(w.k.mnt, name), overwriteData(seed), true)); err != nil {
				return
			}
			w.ack(name, seed)
			continue
		}
		name = overwriteName(int(uint64(seed) % overwriteFiles))
		w.mu.Lock()
		w.inflight, w.newSeed = name, seed
		w.mu.Unlock()
		if err := w.stop(overwriteSynced(filepath.Join(w.k.mnt, name), overwriteData(seed), i%2 == 0, !w.k.cfg.noSync)); err != nil {
			return
		}
		w.ack(name, seed)
	}
}

func (w *overwriter) ack(name string, seed int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.acked[name] = seed
	w.inflight = ""
	w.n++
}

// overwriteSynced writes data over path from offset 0, without truncating,
// and returns once fdatasync (datasync) or fsync returned.
func overwriteSynced(path string, data []byte, datasync, sync bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return err
	}
	if sync {
		if datasync {
			err = syscall.Fdatasync(int(f.Fd()))
		} else {
			err = f.Sync()
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// commit moves the acknowledged overwrites into the manifest, and the one
// in flight into the killer's pending set, for the next check to settle.
func (w *overwriter) commit() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, seed := range w.acked {
		if _, dup := w.k.manifest[name]; !dup {
			w.k.order = append(w.k.order, name)
		}
		w.k.manifest[name] = seed
		delete(w.k.blended, name)
	}
	if w.inflight != "" {
		w.k.overwriting[w.inflight] = w.newSeed
	}
}

func (w *overwriter) done() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d writes synced this round", w.n)
}

// wantContent is what file name must hold: an overwrite settled after a
// kill (blended) or its acknowledged content.
func (k *killer) wantContent(name string, seed int64) []byte {
	if b, ok := k.blended[name]; ok {
		return b
	}
	return k.content(name, seed)
}

// settleOverwrites decides the overwrites in flight at the kill: got is
// what the file holds now; each block must be the acknowledged content's
// or the new one's, and the file holds that blend from then on.
func (k *killer) settleOverwrites(read func(name string) ([]byte, error), when string) {
	for name, next := range k.overwriting {
		old := k.wantContent(name, k.manifest[name])
		got, err := read(name)
		if err != nil {
			k.fail("%s: overwrite of %s in flight at the kill: %v", when, name, err)
			continue
		}
		nw := overwriteData(next)
		if len(got) != len(old) {
			k.fail("%s: overwrite of %s in flight at the kill: %d bytes, want %d", when, name, len(got), len(old))
			continue
		}
		for b := 0; b < len(got); b += 4096 {
			e := min(b+4096, len(got))
			if string(got[b:e]) != string(old[b:e]) && string(got[b:e]) != string(nw[b:e]) {
				k.fail("%s: overwrite of %s in flight at the kill: block %d is neither the old nor the new content", when, name, b/4096)
				break
			}
		}
		k.blended[name] = got
	}
	clear(k.overwriting)
}

// isOverwriteFile reports whether name is one of the overwrite workload's.
func isOverwriteFile(name string) bool { return strings.HasPrefix(name, overwritePrefix) }
