package bench

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// UpdatesConfig is Figure 8 of the virtual-log paper: random synchronous
// 4 KiB updates to one file, no idle time, sweeping utilisation.
type UpdatesConfig struct {
	Model        *disk.Model
	DiskBytes    int64     // simulated disk region (image size); default 128 MiB
	Utilizations []float64 // default 0.1 ... 0.9, 0.95; 0 updates a one-block file
	Updates      int       // measured updates per point; default 2000
	Seed         int64
	// Seeds averages every point over seeds Seed, Seed+1, ... (seeds.go);
	// 0 or 1: Seed alone.
	Seeds int
	// Placements to run; default inplace, eager, lfs.
	Placements  []vld.Placement
	CleanPolicy logical.CleanPolicy // the LFS cleaner's
	// Compacted measures eager placement (and the vlfs rows, on the eager
	// VLD) right after an offline run of the idle-time compactor (after
	// the warm-up), as the virtual-log paper measured its Table 2
	// (footnote 1 of section 5.4).
	Compacted bool
	// Head is the head model eager placement writes by: nil is the
	// simulator's own (oracle) head, a profile the profiled head (issue 8).
	// The simulated disk charges the real mechanical cost either way.
	Head *profile.Profile
	// VLFS adds the file system's rows (placement PlaceVLFS): the same
	// updates through vlfs on the eager VLD (updates_vlfs.go), so that
	// the file system's cost sits beside the logical disk's (issue 33).
	// With VLFS set and no Placements, only the vlfs rows run.
	VLFS bool
	// FSVersion is the vlfs rows' file-system version, passed to
	// vlfs.MkfsOptions.Version as it is (0: mkfs's default).
	FSVersion uint32
	// SectorPieces formats the eager logical disks with sector pieces
	// (logical.SectorPieceEntries: a one-sector map entry per update)
	// instead of block pieces; in place and LFS keep block pieces.
	SectorPieces bool
}

// checkPlacements rejects placements a logical-disk benchmark cannot run.
func checkPlacements(bench string, ps []vld.Placement) error {
	for _, p := range ps {
		switch p {
		case vld.PlaceEager, vld.PlaceInPlace, vld.PlaceLFS:
		default:
			return fmt.Errorf("%s: placement %v: the logical disk runs eager, inplace or lfs: %w", bench, p, vld.ErrInvalid)
		}
	}
	return nil
}

// DefaultUtilizations is the sweep of Figure 8.
func DefaultUtilizations() []float64 {
	return []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}
}

// Updates runs the sweep on a logical disk (the paper's UFS-on-VLD setting:
// every write is synchronous, so each update is a write and a sync) for
// eager placement and for update-in-place on the same simulated disk.
// Times are simulated.
func Updates(cfg UpdatesConfig) (*Report, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("updates: no disk model: %w", disk.ErrInvalidModel)
	}
	if cfg.DiskBytes == 0 {
		cfg.DiskBytes = 128 << 20
	}
	if len(cfg.Utilizations) == 0 {
		cfg.Utilizations = DefaultUtilizations()
	}
	if cfg.Updates <= 0 {
		cfg.Updates = 2000
	}
	if len(cfg.Placements) == 0 && !cfg.VLFS {
		cfg.Placements = []vld.Placement{vld.PlaceInPlace, vld.PlaceEager, vld.PlaceLFS}
	}
	if err := checkPlacements("updates", cfg.Placements); err != nil {
		return nil, err
	}
	var fsImg []byte
	if cfg.VLFS {
		// Made first so that a file-system version mkfs refuses fails
		// the run before any row is measured.
		var err error
		if fsImg, err = vlfsEmptyImage(cfg); err != nil {
			return nil, err
		}
	}
	rep := &Report{
		Bench: "updates", Disk: cfg.Model.Params(), Clock: ClockSimulated,
		Params: map[string]any{"disk_bytes": cfg.DiskBytes, "updates": cfg.Updates, "seed": cfg.Seed, "block_bytes": 4096,
			"nvram_bytes": NVRAMBytes, "clean_policy": cfg.CleanPolicy.String(), "head": headName(cfg.Head)},
		Columns: []string{"placement", "utilization", "mean_ms", "overhead_ms", "transfer_ms", "locate_ms", "requests_per_update",
			"blocks_per_update", "flushes_per_update", "write_cost", "cleaned_segments", "clean_ms_per_update", "fs_version"},
		Notes: []string{
			"each update: one synchronous 4 KiB write at a random offset of a file filling `utilization` of the disk (in place: write then flush; eager: data and the map piece's virtual-log entry as one request, then flush)",
			"utilization = file size / logical disk size; eager runs a warm-up of as many updates before measuring",
			"lfs (section 5.3): updates go to a 6.1 MB NVRAM buffer (durable at memory speed, no simulated time); a full buffer is flushed to the log (512 KiB segments) as one scattered write and a sync; the segment cleaner runs when fewer than 4 segments are clean; warm-up: as many blocks as the free space, then whole flush cycles are measured (at least `updates` updates and 4 flushes)",
			"write_cost (lfs) = (blocks the client wrote + blocks the cleaner read + blocks it moved) / blocks the client wrote",
			vlfsRowNote,
			"every row, per measured update: requests_per_update = device requests (reads and writes), blocks_per_update = blocks written (lfs: with the cleaner's), flushes_per_update = device flushes",
		},
	}
	if cfg.SectorPieces {
		rep.Params["pieces"] = "sector"
		rep.Notes = append(rep.Notes, sectorPiecesNote)
	}
	if cfg.Seeds > 1 {
		rep.Params["seeds"] = cfg.Seeds
		rep.Notes = append(rep.Notes, seedsNote)
	}
	for _, p := range cfg.Placements {
		for _, u := range cfg.Utilizations {
			row, err := averageSeeds(cfg.Seed, cfg.Seeds, func(seed int64) (map[string]any, error) {
				c := cfg
				c.Seed = seed
				return updatesPoint(c, p, u)
			})
			if err != nil {
				return nil, err
			}
			rep.Rows = append(rep.Rows, row)
		}
		// vlfs runs on the eager VLD: its rows follow eager's.
		if p == vld.PlaceEager && cfg.VLFS {
			if err := updatesVLFSRows(cfg, fsImg, rep); err != nil {
				return nil, err
			}
		}
	}
	if cfg.VLFS && !slices.Contains(cfg.Placements, vld.PlaceEager) {
		if err := updatesVLFSRows(cfg, fsImg, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// seedsNote says what --seeds does.
const seedsNote = "seeds: every row is the mean over seeds seed, seed+1, ... (each its own fill, warm-up and updates); the layout a seed leaves moves a point by up to 13 %"

// sectorPiecesNote says what --pieces sector changes.
const sectorPiecesNote = "pieces sector: the eager logical disks map 64 blocks a piece (256 bytes, a one-sector log entry) instead of 768 (3 KiB, seven sectors); in place and lfs keep block pieces; the vlfs rows are the file system's own"

func updatesPoint(cfg UpdatesConfig, p vld.Placement, u float64) (map[string]any, error) {
	dev := device.NewMem(cfg.DiskBytes)
	per := 0 // block pieces
	if cfg.SectorPieces && p == vld.PlaceEager {
		per = logical.SectorPieceEntries
	}
	if err := logical.FormatWith(dev, vld.FormatOptions{Model: cfg.Model}, p, per); err != nil {
		return nil, err
	}
	d, err := logical.Open(dev, vld.Options{Head: cfg.Head})
	if err != nil {
		return nil, err
	}
	defer d.Volume().Close()
	bs := d.BlockSize()
	// At utilisation 0 the file is one block: an empty disk but for the
	// block the updates rewrite (bench fullness's 0 % level).
	file := max(1, int64(float64(d.Blocks())*u))
	chunk := make([][]byte, 64)
	for i := range chunk {
		chunk[i] = make([]byte, bs)
	}
	for l := int64(0); l < file; l += 64 {
		n := min(int64(64), file-l)
		if err := d.Write(l, chunk[:n]); err != nil {
			return nil, fmt.Errorf("updates: filling to %.0f%%: %w", u*100, err)
		}
	}
	if err := d.Sync(); err != nil {
		return nil, err
	}
	if p == vld.PlaceLFS {
		return updatesLFSPoint(cfg, d, file, u)
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	one := chunk[:1]
	update := func() error { return d.WriteSync(rng.Int63n(file), one) }
	if p == vld.PlaceEager {
		for i := 0; i < cfg.Updates; i++ {
			if err := update(); err != nil {
				return nil, fmt.Errorf("updates: warm-up at %.0f%%: %w", u*100, err)
			}
		}
		if cfg.Compacted {
			if err := compactNow(compactor.Logical(d)); err != nil {
				return nil, fmt.Errorf("updates: compacting at %.0f%%: %w", u*100, err)
			}
		}
	}
	s0 := d.Volume().Stats()
	for i := 0; i < cfg.Updates; i++ {
		if err := update(); err != nil {
			return nil, fmt.Errorf("updates at %.0f%%: %w", u*100, err)
		}
	}
	row := perUpdate(s0, d.Volume().Stats(), cfg.Updates)
	row["placement"], row["utilization"] = p.String(), u
	if cfg.Compacted && p == vld.PlaceEager {
		row["compacted"] = true
	}
	return row, nil
}

// perUpdate is the mean cost of n updates between two snapshots of a
// volume's counters: the columns every row of the report has, whatever
// runs on the volume (logical disk or file system), so that they compare.
func perUpdate(s0, s1 vld.Stats, updates int) map[string]any {
	n := float64(updates)
	return map[string]any{
		"mean_ms":             (s1.SimNowMs - s0.SimNowMs) / n,
		"overhead_ms":         (s1.Sim.OverheadMs - s0.Sim.OverheadMs) / n,
		"transfer_ms":         (s1.Sim.TransferMs - s0.Sim.TransferMs) / n,
		"locate_ms":           (s1.Sim.LocateMs - s0.Sim.LocateMs) / n,
		"requests_per_update": float64(s1.Writes-s0.Writes+s1.Reads-s0.Reads) / n,
		"blocks_per_update":   kibBlocks(s1.SectorsWritten-s0.SectorsWritten) / n,
		"flushes_per_update":  float64(s1.Flushes-s0.Flushes) / n,
	}
}

// kibBlocks is sectors written as 4 KiB blocks: what a sector-sized log
// entry costs counts as the part of a block it transferred.
func kibBlocks(sectors int64) float64 { return float64(sectors) * disk.SectorSize / 4096 }

// compactNow runs the idle-time compactor on t until it reaches its
// target of empty tracks (or finds nothing to move), in at most a
// simulated minute of idle time.
func compactNow(t compactor.Target) error {
	cfg, err := compactor.Config{Start: compactor.StartAlways}.WithDefaults()
	if err != nil {
		return err
	}
	c, err := compactor.New(t, cfg)
	if err != nil {
		return err
	}
	_, err = c.Think(60_000)
	return err
}

// headName is the head model's name in a report's params: HeadOracle for
// the simulator's own head, HeadProfile for a measured profile.
func headName(p *profile.Profile) string {
	if p == nil {
		return HeadOracle
	}
	return HeadProfile
}
