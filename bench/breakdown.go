package bench

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// BreakdownConfig is Table 2 / Figure 9 of the virtual-log paper: random
// synchronous 4 KiB updates at one utilisation, latency split into
// controller overhead, transfer, locate and other, eager against in place.
type BreakdownConfig struct {
	Models      []*disk.Model // default hp97560 and st19101
	DiskBytes   int64         // default 128 MiB
	Utilization float64       // default 0.8
	Updates     int           // default 2000
	Seed        int64
	Seeds       int // every point averaged over this many seeds (UpdatesConfig.Seeds)
	// Placements: default inplace and eager (Table 2), unless VLFS is
	// set; lfs adds its row.
	Placements []vld.Placement
	// Compacted: measure eager right after a compactor run, as the
	// paper's Table 2 did (UpdatesConfig.Compacted).
	Compacted bool
	// Head: eager placement's head model (UpdatesConfig.Head). A profile
	// belongs to one disk, so it needs exactly one model.
	Head *profile.Profile
	// VLFS adds the file system's row beside the logical disk's, and
	// FSVersion is its file-system version (UpdatesConfig.VLFS,
	// FSVersion).
	VLFS      bool
	FSVersion uint32
	// SectorPieces: the eager logical disks with sector pieces
	// (UpdatesConfig.SectorPieces).
	SectorPieces bool
}

// Breakdown runs the updates benchmark at one utilisation on each disk and
// reports the Figure 9 split, the eager speed-up over in place, and the
// lower bound for eager: controller overhead + transfer + the locate time of
// formula (2) for the blocks an update must write (the data block and one
// virtual-log entry). With VLFS, the file system's row stands beside them
// with its mean over eager's (vs_eager): what the file system adds to the
// logical disk's update. Times are simulated; "other" is host processing,
// which the simulation does not charge (0).
func Breakdown(cfg BreakdownConfig) (*Report, error) {
	if len(cfg.Models) == 0 {
		for _, n := range []string{"hp97560", "st19101"} {
			m, err := disk.Preset(n)
			if err != nil {
				return nil, err
			}
			cfg.Models = append(cfg.Models, m)
		}
	}
	if cfg.Head != nil && len(cfg.Models) != 1 {
		return nil, fmt.Errorf("breakdown: a head profile is measured on one disk; run one model, not %d: %w", len(cfg.Models), disk.ErrBadParameter)
	}
	if cfg.Utilization == 0 {
		cfg.Utilization = 0.8
	}
	if cfg.Utilization <= 0 || cfg.Utilization >= 1 {
		return nil, fmt.Errorf("breakdown: utilization %v outside (0, 1): %w", cfg.Utilization, disk.ErrBadParameter)
	}
	if len(cfg.Placements) == 0 && !cfg.VLFS {
		cfg.Placements = []vld.Placement{vld.PlaceInPlace, vld.PlaceEager}
	}
	rep := &Report{
		Bench: "breakdown", Disk: map[string]any{}, Clock: ClockSimulated,
		Params: map[string]any{"utilization": cfg.Utilization, "updates": cfg.Updates, "seed": cfg.Seed, "disk_bytes": cfg.DiskBytes, "compacted": cfg.Compacted, "head": headName(cfg.Head)},
		Columns: []string{"disk", "placement", "mean_ms", "overhead_ms", "transfer_ms", "locate_ms", "other_ms", "speedup", "lower_bound_ms", "vs_bound",
			"vs_eager", "blocks_per_update", "requests_per_update", "fs_version"},
		Notes: []string{
			"speedup = in-place mean / eager mean on the same simulated disk",
			"lower_bound_ms (eager rows) = one controller overhead + transfer of the data block and its log entry (a block; with pieces sector, one sector) + formula (2)'s locate time for one 4 KiB unit at this utilisation",
			"other_ms is 0: the simulation charges no host processing time",
			"compacted = true: eager is measured right after an offline compactor run (the paper's Table 2, footnote 1 of section 5.4); false: in the fragmented steady state with no idle time",
			vlfsRowNote + "; with compacted = true it too is measured right after a compactor run",
			"vs_eager (vlfs row) = vlfs mean / eager mean on the same simulated disk; blocks_per_update and requests_per_update as in bench updates",
		},
	}
	if cfg.Seeds > 1 {
		rep.Params["seeds"] = cfg.Seeds
		rep.Notes = append(rep.Notes, seedsNote+"; speedup, vs_bound and vs_eager are ratios of the means")
	}
	for _, m := range cfg.Models {
		rep.Disk[m.Name] = m.Params()
		u, err := Updates(UpdatesConfig{Model: m, DiskBytes: cfg.DiskBytes, Utilizations: []float64{cfg.Utilization}, Updates: cfg.Updates, Seed: cfg.Seed, Seeds: cfg.Seeds, Placements: cfg.Placements, Compacted: cfg.Compacted, Head: cfg.Head,
			VLFS: cfg.VLFS, FSVersion: cfg.FSVersion, SectorPieces: cfg.SectorPieces})
		if err != nil {
			return nil, err
		}
		means := map[string]float64{}
		for _, r := range u.Rows {
			means[r["placement"].(string)] = r["mean_ms"].(float64)
		}
		inplace, eager := means["inplace"], means["eager"]
		for _, r := range u.Rows {
			row := map[string]any{"disk": m.Name, "other_ms": 0.0}
			for _, k := range []string{"placement", "mean_ms", "overhead_ms", "transfer_ms", "locate_ms", "blocks_per_update", "requests_per_update", "fs_version"} {
				if v, ok := r[k]; ok {
					row[k] = v
				}
			}
			if r["placement"] == PlaceVLFS && eager > 0 {
				row["vs_eager"] = r["mean_ms"].(float64) / eager
			}
			if r["placement"] == "eager" && inplace > 0 {
				mean := r["mean_ms"].(float64)
				lb, err := eagerLowerBound(m, cfg.Utilization, cfg.SectorPieces)
				if err != nil {
					return nil, err
				}
				row["speedup"] = inplace / mean
				row["lower_bound_ms"] = lb
				row["vs_bound"] = mean / lb
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

// eagerLowerBound is overhead + the transfer of a data block and its log
// entry (a block, or with sector pieces one 512-byte sector) + formula (2)
// in 4 KiB units on the outer zone.
func eagerLowerBound(m *disk.Model, u float64, sectorPieces bool) (float64, error) {
	l, err := disk.NewLayout(m, 4096, 0)
	if err != nil {
		return 0, err
	}
	unitMs := l.BlockMs(0)
	n := l.TrackBlocks(0)
	locate := disk.LocateModel(n, m.Surfaces, 1-u, m.HeadSwitchMs/unitMs) * unitMs
	entry := 1.0
	if sectorPieces {
		entry = float64(disk.SectorSize) / 4096
	}
	return m.WriteOverheadMs + (1+entry)*unitMs + locate, nil
}
