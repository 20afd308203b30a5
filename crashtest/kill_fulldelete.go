package crashtest

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// The full-delete kill workload (KillConfig.Workload = WorkloadFullDelete):
// the image is filled with small files to ENOSPC, then each round unlinks
// them (and the files earlier rounds wrote) in batches, each batch acknowledged by an fsync of their directory,
// and writes a few new files into the freed space, until the SIGKILL. On
// a full disk vlfs splits a bulk delete into many commits that each fit
// (lockChange), so the kills land before, inside and between those. The
// oracle: every acknowledged delete stays gone, every acknowledged file
// stays whole, and an unlink in flight at the kill may go either way.

// fillDir holds the fill's files.
const fillDir = "fill"

// fillData is the content of a fill file: 1 byte to 8 KiB, so that the
// image holds many inodes and a delete touches many inode blocks.
func fillData(seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, 1+r.Intn(8<<10))
	r.Read(b)
	return b
}

// fillImage mounts the image, fills it to ENOSPC, acknowledges the files
// with an fsync of their directory and unmounts cleanly.
func (k *killer) fillImage() error {
	d, err := k.startDaemon()
	if err != nil {
		return err
	}
	dir := filepath.Join(k.mnt, fillDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		d.kill()
		detach(k.mnt)
		return fmt.Errorf("%w: %w", ErrKill, err)
	}
	var names []string
	var seeds []int64
	for i := 0; ; i++ {
		name, seed := fmt.Sprintf("%s/f%06d", fillDir, i), k.rng.Int63()
		if err := writeSynced(filepath.Join(k.mnt, name), fillData(seed), false); err != nil {
			os.Remove(filepath.Join(k.mnt, name)) // not acknowledged: it may hold part of its data
			if !errors.Is(err, syscall.ENOSPC) {
				d.kill()
				detach(k.mnt)
				return fmt.Errorf("%w: fill: %w", ErrKill, err)
			}
			break
		}
		names, seeds = append(names, name), append(seeds, seed)
	}
	if err := syncDir(dir); err != nil {
		k.fail("fill: fsync of %s after %d files: %v", dir, len(names), err)
	}
	for i, name := range names {
		k.manifest[name] = seeds[i]
		k.order = append(k.order, name)
	}
	k.filled = len(names)
	k.logf("fill: %d files to ENOSPC", len(names))
	if err := d.unmount(k.mnt); err != nil {
		return err
	}
	return k.checkImage("after the fill")
}

// syncDir fsyncs a directory.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// deleter is the full-delete workload of one round.
type deleter struct {
	k      *killer
	round  int
	victim []string // fill files still in the manifest, in the order to delete them
	seeds  []int64  // content seeds of new files, drawn up front
	batch  []int    // batch sizes, drawn up front

	mu      sync.Mutex
	gone    []string // deletes acknowledged
	pending []string // unlinked since the last acknowledgement
	names   []string // new files acknowledged
	acks    []int64
	rooms   int64 // room commits the daemon reported, last seen
	workEnd
}

func newDeleter(k *killer, round int) *deleter {
	d := &deleter{k: k, round: round}
	// Every acknowledged file may go: after the first round has emptied
	// fill/, the new files that refilled the disk are deleted in turn, so
	// later rounds find the disk full again too.
	for _, name := range k.order {
		if _, ok := k.manifest[name]; ok {
			d.victim = append(d.victim, name)
		}
	}
	k.rng.Shuffle(len(d.victim), func(i, j int) { d.victim[i], d.victim[j] = d.victim[j], d.victim[i] })
	for range 1000 {
		d.seeds = append(d.seeds, k.rng.Int63())
		d.batch = append(d.batch, 10+k.rng.Intn(400))
	}
	return d
}

// loop unlinks a batch, fsyncs the directory (acknowledging the batch),
// writes and fsyncs a new file into the freed space, and so on.
func (d *deleter) loop() {
	dir := filepath.Join(d.k.mnt, fillDir)
	next := 0
	for b := 0; b < len(d.batch) && next < len(d.victim); b++ {
		end := min(next+d.batch[b], len(d.victim))
		for _, name := range d.victim[next:end] {
			d.mu.Lock()
			d.pending = append(d.pending, name) // from the moment the request may reach the daemon
			d.mu.Unlock()
			if err := os.Remove(filepath.Join(d.k.mnt, name)); err != nil {
				d.stop(err)
				return
			}
		}
		next = end
		if !d.k.cfg.noSync {
			for _, dir := range []string{dir, d.k.mnt} { // the batch's names are in either
				if err := syncDir(dir); err != nil {
					d.stop(err)
					return
				}
			}
		}
		rooms := roomCommits(d.k.mnt)
		d.mu.Lock()
		d.gone, d.pending = append(d.gone, d.pending...), nil
		d.rooms = max(d.rooms, rooms)
		d.mu.Unlock()
		if d.k.cfg.noSync {
			// The mutation deletes only: a new file's write on the full
			// disk would make a room commit that covers the unsynced
			// deletes, and the kill would then find nothing to lose.
			continue
		}
		name := fmt.Sprintf("r%02d-new%04d", d.round, b)
		err := writeSynced(filepath.Join(d.k.mnt, name), fileData(d.seeds[b]), !d.k.cfg.noSync)
		if errors.Is(err, syscall.ENOSPC) {
			continue // not acknowledged; freed space comes with the next batches
		}
		if err != nil {
			d.stop(err)
			return
		}
		d.ack(name, d.seeds[b])
	}
	if d.k.cfg.noSync {
		d.waitKill(dir)
		return
	}
	// Every file is gone: write new files until the kill (or ENOSPC).
	for i, seed := range d.seeds {
		name := fmt.Sprintf("r%02d-more%04d", d.round, i)
		if err := writeSynced(filepath.Join(d.k.mnt, name), fileData(seed), !d.k.cfg.noSync); err != nil {
			d.stop(err)
			return
		}
		d.ack(name, seed)
	}
}

// waitKill is the mutation's end: with every file deleted it writes
// nothing more (a write could commit the unsynced deletes), and polls
// dir until the kill makes that fail.
func (d *deleter) waitKill(dir string) {
	for {
		if _, err := os.Stat(dir); err != nil {
			d.stop(err)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// ack records a new file whose fsync returned.
func (d *deleter) ack(name string, seed int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.names, d.acks = append(d.names, name), append(d.acks, seed)
}

// roomCommits reads the daemon's room commits from the mount's stats
// file (0 if it cannot).
func roomCommits(mnt string) int64 {
	r, err := fusefs.ReadLiveReport(mnt)
	if err != nil {
		return 0
	}
	return r.RoomCommits
}

func (d *deleter) commit() {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := d.k
	for _, name := range d.gone {
		delete(k.manifest, name)
		k.gone[name] = true
	}
	for _, name := range d.pending {
		k.maybe[name] = k.manifest[name]
		delete(k.manifest, name)
	}
	for i, name := range d.names {
		k.manifest[name] = d.acks[i]
		k.order = append(k.order, name)
	}
	k.rooms += d.rooms
}

func (d *deleter) done() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf("%d deletes acknowledged, %d in flight, %d new files fsync'd, %d commits made room",
		len(d.gone), len(d.pending), len(d.names), d.rooms)
}
