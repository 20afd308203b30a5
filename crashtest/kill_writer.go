package crashtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// writer creates files on the mount and fsyncs them; a file is
// acknowledged (and goes into the manifest) only once its fsync returned.
// Every third file is written under a temporary name, fsync'd, renamed and
// its directory fsync'd, the classic atomic-replace pattern.
type writer struct {
	k     *killer
	round int
	seeds []int64 // content seeds drawn up front (the rng is not shared)

	workEnd
	mu    sync.Mutex
	names []string
	acks  []int64
	acked int
}

func newWriter(k *killer, round int) *writer {
	w := &writer{k: k, round: round}
	for range 10000 {
		w.seeds = append(w.seeds, k.rng.Int63())
	}
	return w
}

// loop writes files until an error (the daemon is gone) or the seeds run out.
func (w *writer) loop() {
	for i, seed := range w.seeds {
		name := fmt.Sprintf("r%02d-%05d", w.round, i)
		var err error
		if i%3 == 2 {
			err = w.viaRename(name, seed)
		} else {
			err = writeSynced(filepath.Join(w.k.mnt, name), fileData(seed), !w.k.cfg.noSync)
		}
		if w.stop(err) != nil {
			return
		}
		w.mu.Lock()
		w.names, w.acks = append(w.names, name), append(w.acks, seed)
		w.acked++
		w.mu.Unlock()
	}
}

func (w *writer) viaRename(name string, seed int64) error {
	tmp := filepath.Join(w.k.mnt, name+".tmp")
	if err := writeSynced(tmp, fileData(seed), !w.k.cfg.noSync); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(w.k.mnt, name)); err != nil {
		return err
	}
	if w.k.cfg.noSync {
		return nil
	}
	d, err := os.Open(w.k.mnt)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeSynced creates path with data and returns once fsync returned
// (sync false: the noSync mutation, no fsync).
func writeSynced(path string, data []byte, sync bool) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// commit adds the acknowledged files to the killer's manifest (and its
// file in the work directory, JuiceFS style).
func (w *writer) commit() {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(w.k.cfg.Dir, "manifest"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		defer f.Close()
	}
	for i, name := range w.names {
		if _, dup := w.k.manifest[name]; !dup {
			w.k.order = append(w.k.order, name)
		}
		w.k.manifest[name] = w.acks[i]
		if f != nil {
			fmt.Fprintf(f, "%s %d %d\n", name, w.acks[i], len(fileData(w.acks[i])))
		}
	}
}

func (w *writer) done() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d files fsync'd this round", w.acked)
}
