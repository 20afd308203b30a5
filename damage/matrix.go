package damage

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand"
	"slices"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// Block kinds beyond vlfs.MetaBlock's: the volume's own.
const (
	KindSuperblock = "superblock"      // block 0 (copies at the middle and last blocks)
	KindSlot       = "checkpoint-slot" // blocks 1 and 2
	KindCkptDir    = "checkpoint-directory"
	KindTail       = "tail" // block 3, the clean-stop record
	// KindPieceCopy is one of the two copies of a piece (a slice of the
	// inode map, node map or log records) a clean stop writes.
	KindPieceCopy = "piece-copy"
	// KindLogRoot is the newest virtual-log entry, KindLogEntry the older
	// live ones: one copy each (docs/vld.md). A clean stop copies what
	// they hold and leaves none, so an image has them only if an older
	// build stopped it (or it crashed); they are not among the default
	// kinds, and asking for them shows what their damage costs there.
	KindLogRoot  = "log-root"
	KindLogEntry = "log-entry"
)

// DefaultKinds are the kinds of block whose single damage the product
// promises to survive (docs/fsck.md). Damaged file data (vlfs.MetaData) is
// found by its checksum on version 4 and reads as EIO, never as wrong
// bytes; a version-3 image has no data checksums, and its data rows fail.
var DefaultKinds = []string{vlfs.MetaInodeBlock, vlfs.MetaIndirect, vlfs.MetaDirectory, vlfs.MetaXattr,
	vlfs.MetaData, KindSuperblock, KindSlot, KindCkptDir, KindTail, KindPieceCopy}

// AllKinds are every kind Run knows: the defaults and the single-copy log
// entries.
func AllKinds() []string { return append(slices.Clone(DefaultKinds), KindLogRoot, KindLogEntry) }

// Damages are the ways a block is damaged: one bit flipped, zeroed,
// random bytes, and an older version of the block (DamageStale, stale.go).
var Damages = []string{"bit", "zero", "random", DamageStale}

// Errors of Run: a configuration it cannot run (an unknown damage), and
// an image it cannot start from (it must mount and check clean).
var (
	ErrConfig = errors.New("damage: bad configuration")
	ErrImage  = errors.New("damage: image not usable")
)

// Config says what Run damages.
type Config struct {
	Image   device.Device // the image, opened read-only; never written
	Kinds   []string      // default DefaultKinds
	Damages []string      // default Damages
	Samples int           // blocks per kind, picked by Seed (default 2)
	Seed    int64
	// Progress, if set, hears each case as it ends.
	Progress func(done, total int, c Case)
}

// Case is one damaged copy and what became of it.
type Case struct {
	Kind   string `json:"kind"`
	Damage string `json:"damage"`
	Addr   uint64 `json:"addr"` // the damaged block
	// StaleOf (stale only) is where the block was before the change that
	// moved it to Addr: the older version put at Addr is what StaleOf held.
	StaleOf  uint64   `json:"stale_of,omitempty"`
	Detected bool     `json:"detected"` // fsck found it
	Repaired bool     `json:"repaired"` // --repair left nothing; a second check is clean; it mounts
	Fixed    []string `json:"fixed"`
	Files
	Failures []string `json:"failures,omitempty"`
}

// Files counts the image's regular files after a repair.
type Files struct {
	Intact    int `json:"intact"`    // same bytes at the same path
	Moved     int `json:"moved"`     // same bytes elsewhere (lost+found, #INO)
	Truncated int `json:"truncated"` // held by the damaged block: a prefix of its bytes
	Lost      int `json:"lost"`      // held by the damaged block: gone
	// Unreadable: held by the damaged block, reads EIO there (its data
	// failed its checksum: there is no copy to repair from)
	Unreadable int `json:"unreadable"`
}

// Row sums the cases of one kind and damage.
type Row struct {
	Kind     string `json:"kind"`
	Damage   string `json:"damage"`
	Cases    int    `json:"cases"`
	Detected int    `json:"detected"`
	Repaired int    `json:"repaired"`
	Files
	Failed int `json:"failed"`
}

// Report is Run's result.
type Report struct {
	Files    int    `json:"files"` // regular files in the image
	Cases    []Case `json:"cases"`
	Rows     []Row  `json:"rows"`
	Failures int    `json:"failures"` // cases with a failure
	// Missing lists the kinds asked for that the image has no block of.
	Missing []string `json:"missing,omitempty"`
	// Skipped lists the kinds and damages asked for that cannot be made,
	// and why (a block written once has no stale older version).
	Skipped []Skip `json:"skipped,omitempty"`
}

// Skip is a kind and damage Run did not run, and why.
type Skip struct {
	Kind   string `json:"kind"`
	Damage string `json:"damage"`
	Reason string `json:"reason"`
}

// Run damages copies of cfg.Image as cfg says and checks each repair.
func Run(cfg Config) (*Report, error) {
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = DefaultKinds
	}
	if len(cfg.Damages) == 0 {
		cfg.Damages = Damages
	}
	cfg.Samples = cmp.Or(cfg.Samples, 2)
	for _, d := range cfg.Damages {
		if !slices.Contains(Damages, d) {
			return nil, fmt.Errorf("%w: unknown damage %q (%v)", ErrConfig, d, Damages)
		}
	}
	base, err := vlfs.Mount(noClose{cfg.Image}, vlfs.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%w: the image must mount cleanly first: %w", ErrImage, err)
	}
	defer base.Close()
	if fds, err := base.Findings(); err != nil || len(fds) > 0 {
		return nil, fmt.Errorf("%w: the image must check clean first (%v %v)", ErrImage, fds, err)
	}
	snap, err := snapshot(base)
	if err != nil {
		return nil, err
	}
	cands, err := candidates(base, cfg.Kinds)
	if err != nil {
		return nil, err
	}
	rep := &Report{Files: len(snap.files), Cases: []Case{}}
	rng := rand.New(rand.NewSource(cfg.Seed))
	type pick struct {
		kind string
		b    block
		// stale: the block a stale case uses instead (an indirect block
		// with a data block under it, which the change needs: one over
		// unwritten reservations only has none; 0 addr: none found)
		stale block
	}
	bsz := base.Volume().BlockSize()
	var picks []pick
	for _, k := range cfg.Kinds {
		bs := cands[k]
		if len(bs) == 0 {
			rep.Missing = append(rep.Missing, k)
			continue
		}
		for _, d := range cfg.Damages {
			if why := skipped(k, d); why != "" {
				rep.Skipped = append(rep.Skipped, Skip{k, d, why})
			}
		}
		rng.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
		var withData []block // indirect blocks a stale case can change, in the same order
		if k == vlfs.MetaIndirect && slices.Contains(cfg.Damages, DamageStale) {
			for _, b := range bs {
				if len(withData) == cfg.Samples {
					break
				}
				if _, _, err := nodeAndBlockUnder(base, b, int64(bsz)); err == nil {
					withData = append(withData, b)
				}
			}
		}
		for i, b := range bs[:min(cfg.Samples, len(bs))] {
			p := pick{kind: k, b: b, stale: b}
			if k == vlfs.MetaIndirect {
				p.stale = block{}
				if i < len(withData) {
					p.stale = withData[i]
				}
			}
			picks = append(picks, p)
		}
	}
	total := 0
	for _, p := range picks {
		for _, d := range cfg.Damages {
			if skipped(p.kind, d) == "" && (d != DamageStale || p.stale.addr != 0) {
				total++
			}
		}
	}
	for _, p := range picks {
		for _, d := range cfg.Damages {
			seed := rng.Int63() // drawn for skipped cases too: a case's seed does not depend on them
			if skipped(p.kind, d) != "" {
				continue
			}
			b := p.b
			if d == DamageStale {
				if b = p.stale; b.addr == 0 {
					if !slices.ContainsFunc(rep.Skipped, func(s Skip) bool { return s.Kind == p.kind && s.Damage == d }) {
						rep.Skipped = append(rep.Skipped, Skip{p.kind, d, "no indirect block left with a data block under it: the change that makes the older version writes one (a block over unwritten reservations only, file-system version 5, has none)"})
					}
					continue
				}
			}
			c := runCase(cfg.Image, bsz, snap, base, p.kind, b, d, seed)
			rep.Cases = append(rep.Cases, c)
			if cfg.Progress != nil {
				cfg.Progress(len(rep.Cases), total, c)
			}
		}
	}
	rep.Rows = rows(rep.Cases)
	for _, c := range rep.Cases {
		if len(c.Failures) > 0 {
			rep.Failures++
		}
	}
	return rep, nil
}

// skipped is why damage d of kind cannot be made ("" when it can).
func skipped(kind, d string) string {
	if d == DamageStale {
		return staleSkip(kind)
	}
	return ""
}

// block is a candidate: its address, the inodes whose bytes it holds
// (hits), and the inode it belongs to (for an inode block, the first it
// holds; 0 for the volume's blocks), which a stale case changes.
type block struct {
	addr uint64
	hits []vlfs.Ino
	ino  vlfs.Ino
}

// candidates lists the blocks of each kind asked for.
func candidates(fs *vlfs.FS, kinds []string) (map[string][]block, error) {
	out := map[string][]block{}
	want := func(k string) bool { return slices.Contains(kinds, k) }
	meta, err := fs.MetaBlocks(want(vlfs.MetaData))
	if err != nil {
		return nil, fmt.Errorf("%w: listing the image's blocks: %w", ErrImage, err)
	}
	ipb := uint64(fs.Volume().BlockSize() / vondisk.InodeSize)
	for _, m := range meta {
		if !want(m.Kind) {
			continue
		}
		b := block{addr: m.Addr, ino: m.Ino}
		switch m.Kind {
		case vlfs.MetaInodeBlock:
			for i := range ipb {
				b.hits = append(b.hits, m.Ino+vlfs.Ino(i))
			}
		case vlfs.MetaIndirect, vlfs.MetaData:
			b.hits = []vlfs.Ino{m.Ino}
		}
		out[m.Kind] = append(out[m.Kind], b)
	}
	if want(KindSuperblock) {
		out[KindSuperblock] = []block{{addr: ondisk.SuperblockAddr}}
	}
	if want(KindSlot) {
		out[KindSlot] = []block{{addr: ondisk.CheckpointA}, {addr: ondisk.CheckpointB}}
	}
	if want(KindTail) {
		out[KindTail] = []block{{addr: ondisk.TailAddr}}
	}
	if want(KindLogRoot) || want(KindLogEntry) {
		root, others := fs.Volume().LogEntryBlocks()
		if root != 0 {
			out[KindLogRoot] = []block{{addr: uint64(root)}}
		}
		for _, a := range others {
			out[KindLogEntry] = append(out[KindLogEntry], block{addr: uint64(a)})
		}
	}
	if want(KindPieceCopy) {
		for _, a := range fs.Volume().PieceCopyBlocks() {
			out[KindPieceCopy] = append(out[KindPieceCopy], block{addr: uint64(a)})
		}
	}
	if want(KindCkptDir) {
		dir, copies := fs.Volume().CheckpointBlocks()
		for _, a := range append(dir, copies...) {
			out[KindCkptDir] = append(out[KindCkptDir], block{addr: uint64(a)})
		}
	}
	return out, nil
}

// runCase damages one block of a copy, checks and repairs the copy, and
// compares its files with the image's (snap, base), or, for a stale case,
// with the copy's after the change that made the older version.
func runCase(img device.Device, bs int, snap *tree, base *vlfs.FS, kind string, b block, dmg string, seed int64) Case {
	c := Case{Kind: kind, Damage: dmg, Addr: b.addr, Fixed: []string{}}
	fail := func(format string, args ...any) { c.Failures = append(c.Failures, fmt.Sprintf(format, args...)) }
	var ov *overlay
	mustDetect := false
	if dmg == DamageStale {
		sc, err := makeStale(img, bs, kind, b)
		if err != nil {
			fail("making the older version: %v", err)
			return c
		}
		defer sc.fs.Close()
		c.Addr, c.StaleOf = sc.at, sc.from
		if snap, err = snapshot(sc.fs); err != nil {
			fail("reading the files after %s: %v", sc.what, err)
			return c
		}
		base, mustDetect = sc.fs, sc.mustDetect
		ov = newOverlay(sc.ov, bs)
		if _, err := ov.WriteAt(sc.old, int64(sc.at)*int64(bs)); err != nil {
			fail("putting the older version at block %d: %v", sc.at, err)
			return c
		}
	} else {
		ov = newOverlay(img, bs)
		buf := make([]byte, bs)
		if _, err := ov.ReadAt(buf, int64(b.addr)*int64(bs)); err != nil {
			fail("reading block %d: %v", b.addr, err)
			return c
		}
		damageBlock(buf[:structLen(kind, buf)], dmg, rand.New(rand.NewSource(seed)))
		if _, err := ov.WriteAt(buf, int64(b.addr)*int64(bs)); err != nil {
			fail("damaging block %d: %v", b.addr, err)
			return c
		}
	}
	found, err := vlfs.CheckDevice(ov, vlfs.Options{ReadOnly: true}) // an overlay outlives its Close
	if err != nil {
		fail("fsck of the damaged copy: %v", err)
		return c
	}
	c.Detected = len(found) > 0
	if mustDetect && !c.Detected {
		// Its bytes differ from the newer version's (makeStale checks):
		// a lost write that nothing notices is what the damage is for.
		fail("the older version of block %d (what block %d held) was not detected: fsck finds nothing", c.Addr, c.StaleOf)
	}
	res, err := vlfs.Repair(ov, vlfs.Options{})
	if err != nil {
		fail("repair: %v", err)
		return c
	}
	c.Fixed = append(c.Fixed, res.Fixed...)
	// What repair cannot do is restore damaged data: a data-checksum
	// finding of a file the block held stays, and says so.
	left := unexpected(res.Left, b.hits)
	if len(left) > 0 {
		fail("repair left %d problems: %v", len(left), left[0])
		return c
	}
	if again, err := vlfs.CheckDevice(ov, vlfs.Options{ReadOnly: true}); err != nil || len(unexpected(again, b.hits)) > 0 {
		fail("second fsck after the repair: %v %v", again, err)
		return c
	}
	fs, err := vlfs.Mount(ov, vlfs.Options{})
	if err != nil {
		fail("mount after the repair: %v", err)
		return c
	}
	defer fs.Close()
	if fds, err := fs.Findings(); err != nil || len(unexpected(fds, b.hits)) > 0 {
		fail("check of the mounted repair: %v %v", fds, err)
		return c
	}
	c.Repaired = true
	after, err := snapshot(fs)
	if err != nil {
		fail("reading the repaired files: %v", err)
		return c
	}
	c.Files = compare(snap, after, base, b.hits, fail)
	return c
}

// unexpected is fds without the data-checksum findings of the inodes the
// damaged block held (hits): the damage itself, which no repair can undo.
func unexpected(fds []vlfs.Finding, hits []vlfs.Ino) []vlfs.Finding {
	return slices.DeleteFunc(slices.Clone(fds), func(f vlfs.Finding) bool {
		return f.Kind == vlfs.FindDataChecksum && slices.Contains(hits, f.Ino)
	})
}

// structLen is how many of block b's bytes its structure owns: a
// sector-granular log entry owns only its sectors (the rest of its block
// is left over from whatever the block held before, read by nothing), so
// damage there is no damage to the entry. Every other kind owns the block.
func structLen(kind string, b []byte) int {
	if kind == KindLogRoot || kind == KindLogEntry {
		if e, err := ondisk.DecodeEntry(b); err == nil {
			return e.Len(len(b))
		}
	}
	return len(b)
}

// damageBlock damages b in place.
func damageBlock(b []byte, how string, rng *rand.Rand) {
	switch how {
	case "bit":
		b[rng.Intn(len(b))] ^= 1 << rng.Intn(8)
	case "zero":
		clear(b)
	case "random":
		rng.Read(b)
	}
}

// rows sums cases by kind and damage, in the order they ran.
func rows(cases []Case) []Row {
	var out []Row
	at := map[[2]string]int{}
	for _, c := range cases {
		k := [2]string{c.Kind, c.Damage}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Row{Kind: c.Kind, Damage: c.Damage})
		}
		r := &out[i]
		r.Cases++
		if c.Detected {
			r.Detected++
		}
		if c.Repaired {
			r.Repaired++
		}
		r.Intact += c.Intact
		r.Moved += c.Moved
		r.Truncated += c.Truncated
		r.Lost += c.Lost
		r.Unreadable += c.Unreadable
		if len(c.Failures) > 0 {
			r.Failed++
		}
	}
	return out
}

// noClose keeps a device open across the mounts that close it.
type noClose struct{ device.Device }

func (noClose) Close() error { return nil }
