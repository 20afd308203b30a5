package crashtest

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// ErrKill is wrapped by errors that stop a kill test from running (not by
// durability failures, which KillResult lists).
var ErrKill = errors.New("crashtest: kill test")

// KillConfig tunes Kill. Binary and Dir are required.
type KillConfig struct {
	Binary    string        // the vlfs binary whose `mount` serves the image
	Dir       string        // work directory: image, mount point, manifest, daemon log
	Rounds    int           // SIGKILLs (default 3)
	Seed      int64         // seeds the kill moments and file sizes
	ImageSize int64         // default 16 MiB per round, at least 64 MiB (the writer must not fill it)
	MaxRun    time.Duration // longest a round writes before the kill (default 500ms)
	Progress  io.Writer     // a line per round, if set
	// Workload is what runs under the kills: WorkloadFsync (the default)
	// creates and fsyncs files; WorkloadFullDelete fills the image first,
	// then each round deletes in batches acknowledged by a directory
	// fsync, so that the kills land among the commits a bulk delete on a
	// full disk is split into (issue 30), and writes new files into the
	// freed space (kill_fulldelete.go).
	Workload string

	// noSync is a mutation for the harness's own test: the writer
	// acknowledges files without fsync, the bug of a daemon that acks
	// fsync without syncing. The kill test must then report failures.
	noSync bool
}

// Kill workloads (KillConfig.Workload).
const (
	WorkloadFsync      = "fsync"
	WorkloadFullDelete = "full-delete"
	WorkloadOverwrite  = "overwrite"
)

// KillResult is what Kill found.
type KillResult struct {
	Rounds   int     `json:"rounds"`
	Files    int     `json:"files"`    // manifest entries at the end (each verified after every kill)
	Verified int     `json:"verified"` // manifest checks made in all
	Seconds  float64 `json:"seconds"`
	// FullRounds counts rounds whose writer stopped on ENOSPC before the
	// kill: they still test recovery but add nothing to the manifest.
	FullRounds int `json:"full_rounds"`
	// Full-delete workload: files made by the fill, deletes acknowledged
	// (each verified absent after every later kill), and the daemons'
	// commits made before a change to keep the next commit within the
	// free blocks, as last seen before each kill (summed over rounds).
	Filled      int   `json:"filled,omitempty"`
	Deleted     int   `json:"deleted,omitempty"`
	RoomCommits int64 `json:"room_commits,omitempty"`
	// CrashOrphans: inodes found on disk with no link after a kill (the
	// kernel still held them; the next mount frees them), allowed then.
	CrashOrphans int `json:"crash_orphans,omitempty"`
	// Replayed: log records (file-system version 3) the recoveries after
	// the kills replayed: commits the kills left standing as records.
	Replayed int      `json:"replayed_records"`
	Failures []string `json:"failure_list,omitempty"`
}

// Kill runs the process-crash test: per round it starts `vlfs mount` on
// the image (recovering the last kill), verifies the manifest through the
// mount, lets a writer create and fsync files (adding each to the manifest
// only after its fsync returned), SIGKILLs the daemon at a seeded random
// moment, detaches the dead mount, and checks the image in-process
// (recovery, (*vlfs.FS).Check, every manifest entry). A last mount verifies
// the manifest once more and unmounts cleanly.
func Kill(cfg KillConfig) (KillResult, error) {
	cfg.Rounds = cmp.Or(cfg.Rounds, 3)
	cfg.Workload = cmp.Or(cfg.Workload, WorkloadFsync)
	switch cfg.Workload {
	case WorkloadFsync:
		// A round writes up to about 15 MiB; a full image would leave the
		// later rounds with nothing to write (they are counted in FullRounds).
		cfg.ImageSize = cmp.Or(cfg.ImageSize, max(64<<20, int64(cfg.Rounds)*16<<20))
	case WorkloadFullDelete:
		cfg.ImageSize = cmp.Or(cfg.ImageSize, 24<<20) // small: the fill is quick
	case WorkloadOverwrite:
		cfg.ImageSize = cmp.Or(cfg.ImageSize, 64<<20)
	default:
		return KillResult{}, fmt.Errorf("%w: workload %q: want %s, %s or %s", ErrKill, cfg.Workload, WorkloadFsync, WorkloadFullDelete, WorkloadOverwrite)
	}
	cfg.MaxRun = cmp.Or(cfg.MaxRun, 500*time.Millisecond)
	k := &killer{cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), manifest: map[string]int64{},
		gone: map[string]bool{}, maybe: map[string]int64{}, overwriting: map[string]int64{}, blended: map[string][]byte{},
		img: filepath.Join(cfg.Dir, "kill.img"), mnt: filepath.Join(cfg.Dir, "mnt")}
	start := time.Now()
	if err := k.prepare(); err != nil {
		return KillResult{}, err
	}
	if cfg.Workload == WorkloadFullDelete {
		if err := k.fillImage(); err != nil {
			return k.result(start), err
		}
	}
	for r := 1; r <= cfg.Rounds; r++ {
		if err := k.round(r); err != nil {
			return k.result(start), err
		}
	}
	if err := k.final(); err != nil {
		return k.result(start), err
	}
	return k.result(start), nil
}

// killer is the state of one kill test.
type killer struct {
	cfg      KillConfig
	rng      *rand.Rand
	img, mnt string
	manifest map[string]int64 // file name -> content seed; content is k.content(name, seed)
	order    []string         // every name ever acknowledged, in order (some since deleted)
	// gone: deletes acknowledged by a directory fsync, which must stay
	// gone; maybe: unlinked when the daemon was killed, not yet
	// acknowledged: either way is right, and the next check decides
	gone  map[string]bool
	maybe map[string]int64
	// overwriting: the overwrite in flight at the kill (file -> its new
	// seed), settled by the next check; blended: what such a file holds
	// since (kill_overwrite.go)
	overwriting map[string]int64
	blended     map[string][]byte
	verified    int
	full        int
	filled      int
	rooms       int64
	orphans     int // crash-left unlinked inodes found after kills (allowed)
	replayed    int // records the in-process recoveries replayed
	failures    []string
}

func (k *killer) result(start time.Time) KillResult {
	return KillResult{Rounds: k.cfg.Rounds, Files: len(k.manifest), Verified: k.verified,
		Seconds: time.Since(start).Seconds(), FullRounds: k.full, Failures: k.failures,
		Filled: k.filled, Deleted: len(k.gone), RoomCommits: k.rooms, CrashOrphans: k.orphans, Replayed: k.replayed}
}

// roundWork is what runs on the mount during one round until the kill.
type roundWork interface {
	loop()         // until an error (the daemon is gone) or the work runs out
	commit()       // moves what was acknowledged into the killer's oracle
	full() bool    // stopped on ENOSPC
	stopped() bool // saw an error
	done() string  // what it did, for the progress line
}

// workEnd is how a round's work ended: the error that stopped it (the
// daemon gone, or ENOSPC), under its own lock, as the killer reads it
// while the work may still run. Embedded by every roundWork.
type workEnd struct {
	mu  sync.Mutex
	err error
}

// stop records err, if not nil, and returns it.
func (e *workEnd) stop(err error) error {
	if err != nil {
		e.mu.Lock()
		e.err = err
		e.mu.Unlock()
	}
	return err
}

// full reports whether the work stopped on ENOSPC.
func (e *workEnd) full() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Is(e.err, syscall.ENOSPC)
}

// stopped reports whether the work saw an error.
func (e *workEnd) stopped() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err != nil
}

func (k *killer) newWork(round int) roundWork {
	switch k.cfg.Workload {
	case WorkloadFullDelete:
		return newDeleter(k, round)
	case WorkloadOverwrite:
		return newOverwriter(k)
	}
	return newWriter(k, round)
}

// content is what file name holds: fill files are small (fillData),
// overwrite files of fixed size (overwriteData).
func (k *killer) content(name string, seed int64) []byte {
	switch {
	case strings.HasPrefix(name, fillDir+"/"):
		return fillData(seed)
	case isOverwriteFile(name):
		return overwriteData(seed)
	}
	return fileData(seed)
}

func (k *killer) fail(format string, args ...any) {
	k.failures = append(k.failures, fmt.Sprintf(format, args...))
}

func (k *killer) logf(format string, args ...any) {
	if k.cfg.Progress != nil {
		fmt.Fprintf(k.cfg.Progress, "crashtest kill: "+format+"\n", args...)
	}
}

// prepare formats the image and makes the mount point.
func (k *killer) prepare() error {
	if err := os.MkdirAll(k.mnt, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrKill, err)
	}
	model, err := disk.Preset(DefaultDisk)
	if err != nil {
		return err
	}
	dev, err := device.OpenFile(k.img, device.FileOptions{Create: true, Size: k.cfg.ImageSize})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKill, err)
	}
	defer dev.Close()
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: model}); err != nil {
		return fmt.Errorf("%w: mkfs: %w", ErrKill, err)
	}
	return nil
}

// round is one mount, write, SIGKILL, check cycle.
func (k *killer) round(r int) error {
	d, err := k.startDaemon()
	if err != nil {
		return err
	}
	k.verifyDir(fmt.Sprintf("round %d, through the mount", r))
	run := time.Duration(k.rng.Int63n(int64(k.cfg.MaxRun))) + 10*time.Millisecond
	w := k.newWork(r)
	done := make(chan struct{})
	go func() { defer close(done); w.loop() }()
	time.Sleep(run)
	killErr := d.kill()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		k.fail("round %d: the writer is still blocked 30 s after the daemon was killed", r)
	}
	detach(k.mnt)
	if killErr != nil {
		return killErr
	}
	w.commit()
	full := ""
	if w.full() {
		k.full++
		full = " (the writer stopped early: image full)"
	}
	k.logf("round %d: killed after %v; %s, %d in the manifest%s", r, run.Round(time.Millisecond), w.done(), len(k.manifest), full)
	if !w.stopped() {
		k.fail("round %d: the writer saw no error after the kill", r)
	}
	return k.checkImage(fmt.Sprintf("round %d, after SIGKILL", r))
}

// final mounts once more, verifies, and unmounts cleanly.
func (k *killer) final() error {
	d, err := k.startDaemon()
	if err != nil {
		return err
	}
	k.verifyDir("final mount")
	if err := d.unmount(k.mnt); err != nil {
		return err
	}
	return k.checkImage("after the final clean unmount")
}

// verifyDir reads every manifest entry through the mount, and checks that
// every acknowledged delete stays gone.
func (k *killer) verifyDir(when string) {
	k.settleOverwrites(func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(k.mnt, name)) }, when)
	for _, name := range k.order {
		if k.gone[name] {
			k.verified++
			if _, err := os.Lstat(filepath.Join(k.mnt, name)); !errors.Is(err, os.ErrNotExist) {
				k.fail("%s: %s was deleted and the delete acknowledged, but it is back (%v)", when, name, err)
			}
			continue
		}
		seed, ok := k.manifest[name]
		if !ok {
			continue
		}
		got, err := os.ReadFile(filepath.Join(k.mnt, name))
		k.verified++
		if err != nil {
			k.fail("%s: manifest entry %s: %v", when, name, err)
			continue
		}
		if want := k.wantContent(name, seed); string(got) != string(want) {
			k.fail("%s: manifest entry %s: %d bytes, want %d (or content differs)", when, name, len(got), len(want))
		}
	}
}

// checkImage recovers the image in-process (read-only), runs Check and
// verifies every manifest entry: the fsck step.
func (k *killer) checkImage(when string) error {
	dev, err := device.OpenFile(k.img, device.FileOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%w: %s: opening the image: %w", ErrKill, when, err)
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{ReadOnly: true})
	if err != nil {
		dev.Close()
		k.fail("%s: recovery failed: %v", when, err)
		return nil
	}
	defer fs.Close()
	k.replayed += fs.Stats().ReplayedRecords
	k.fsck(fs, when)
	ex := executor{fs: fs}
	k.settleMaybe(ex, when)
	k.settleOverwrites(func(name string) ([]byte, error) {
		ino, err := ex.resolve(name)
		if err != nil {
			return nil, err
		}
		a, err := fs.GetAttr(ino)
		if err != nil {
			return nil, err
		}
		s, err := readFile(fs, ino, a.Size)
		return []byte(s), err
	}, when)
	for _, name := range k.order {
		k.verified++
		ino, err := ex.resolve(name)
		if k.gone[name] {
			if err == nil {
				k.fail("%s: fsck view: %s was deleted and the delete acknowledged, but it is back", when, name)
			}
			continue
		}
		seed, ok := k.manifest[name]
		if !ok {
			continue
		}
		if err != nil {
			k.fail("%s: fsck view: manifest entry %s: %v", when, name, err)
			continue
		}
		want := k.wantContent(name, seed)
		got, err := readFile(fs, ino, uint64(len(want)))
		if a, aerr := fs.GetAttr(ino); aerr != nil || err != nil || a.Size != uint64(len(want)) || got != string(want) {
			k.fail("%s: fsck view: manifest entry %s differs (%v %v)", when, name, err, aerr)
		}
	}
	return nil
}

// fsck runs the file system's check on the recovered image. After a
// SIGKILL an inode unlinked while the kernel still held it may be on disk
// with no link (durability.md: the next read-write mount frees it, and the
// next round's mount is one), so that finding alone is allowed then; after
// the clean unmounts nothing is.
func (k *killer) fsck(fs *vlfs.FS, when string) {
	fds, err := fs.Findings()
	if err != nil {
		k.fail("%s: fsck: %v", when, err)
		return
	}
	killed := strings.HasSuffix(when, "after SIGKILL")
	for _, f := range fds {
		if killed && f.Kind == vlfs.FindUnlinked {
			k.orphans++
			continue
		}
		k.fail("%s: fsck: %s: %s", when, f.Kind, f.Detail)
	}
}

// settleMaybe decides the deletes that were in flight at the kill: a file
// still there goes back into the manifest (its content must be intact), a
// file not there is gone from now on.
func (k *killer) settleMaybe(ex executor, when string) {
	for name, seed := range k.maybe {
		if _, err := ex.resolve(name); err != nil {
			k.gone[name] = true
		} else {
			k.manifest[name] = seed
		}
	}
	clear(k.maybe)
}

// fileData is the content of a manifest file with this seed: 1 byte to
// 96 KiB, so files span direct and indirect blocks.
func fileData(seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	b := make([]byte, 1+r.Intn(96<<10))
	r.Read(b)
	return b
}

// detach lazily unmounts a mount point whose daemon died (fusermount3 -u -z).
func detach(mnt string) {
	if err := fusefs.Unmount(mnt, true); err != nil && !errors.Is(err, fusefs.ErrNotMounted) {
		_ = exec.Command("fusermount3", "-u", "-z", mnt).Run()
	}
}

// daemon is one `vlfs mount` child process.
type daemon struct {
	cmd    *exec.Cmd
	exited chan error
	log    string // its log file (stdout and stderr)
}

// startDaemon runs `vlfs mount IMG MNT` in the foreground (as a child we
// can SIGKILL) and waits until the mount is up.
func (k *killer) startDaemon() (*daemon, error) {
	logf, err := os.OpenFile(filepath.Join(k.cfg.Dir, "daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKill, err)
	}
	defer logf.Close()
	args := []string{"mount"}
	if k.cfg.noSync {
		// The mutation's unsynced work must wait for the 5 s flush: an
		// idle-time compaction commit would cover it before the kill.
		args = append(args, "-compactor", "off")
	}
	args = append(args, k.img, k.mnt)
	cmd := exec.Command(k.cfg.Binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: starting %s mount: %w", ErrKill, k.cfg.Binary, err)
	}
	d := &daemon{cmd: cmd, exited: make(chan error, 1), log: logf.Name()}
	go func() { d.exited <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if typ, ok, _ := fusefs.MountType(k.mnt); ok && fusefs.IsVLFS(typ) {
			return d, nil
		}
		select {
		case err := <-d.exited:
			return nil, fmt.Errorf("%w: vlfs mount exited before the mount was up (%v); see %s", ErrKill, err, logf.Name())
		case <-time.After(20 * time.Millisecond):
		}
	}
	d.kill()
	detach(k.mnt)
	return nil, fmt.Errorf("%w: the mount was not up after 20 s; see %s", ErrKill, logf.Name())
}

// kill sends SIGKILL and reaps the process.
func (d *daemon) kill() error {
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%w: SIGKILL: %w", ErrKill, err)
	}
	select {
	case <-d.exited:
		return nil
	case <-time.After(20 * time.Second):
		return fmt.Errorf("%w: the daemon did not exit 20 s after SIGKILL", ErrKill)
	}
}

// unmount unmounts cleanly and waits for the daemon to close the image.
func (d *daemon) unmount(mnt string) error {
	var err error
	for range 50 {
		if err = fusefs.Unmount(mnt, false); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		d.kill()
		detach(mnt)
		return fmt.Errorf("%w: unmount: %w", ErrKill, err)
	}
	select {
	case err := <-d.exited:
		if err != nil {
			return fmt.Errorf("%w: the daemon exited with %v after unmount; the end of its log:\n%s", ErrKill, err, logTail(d.log, 2000))
		}
		return nil
	case <-time.After(30 * time.Second):
		d.kill()
		return fmt.Errorf("%w: the daemon still running 30 s after unmount", ErrKill)
	}
}

// logTail is the last n bytes of the file at path (a daemon's log), for
// an error message; what cannot be read says so.
func logTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	return string(b)
}
