package diskfs

import "github.com/vlfs/vlfs/vld"

// Stats are a disk's counters since it was opened. Every *Ms value is
// simulated time (the disk model's clock), in milliseconds.
type Stats struct {
	Backend    string `json:"backend"`              // "vld" or "memory"
	Placement  string `json:"placement,omitempty"`  // "eager" or "inplace"
	Model      string `json:"disk_model,omitempty"` // the simulated disk
	Clock      string `json:"clock"`                // "simulated", "real-time" or "none"
	SizeBytes  int64  `json:"size_bytes"`
	BlockBytes int    `json:"block_bytes"`

	Sim      SimTimes `json:"sim"`        // all simulated service time
	WriteSim SimTimes `json:"sim_writes"` // the part spent on writes
	SimNowMs float64  `json:"sim_now_ms"` // the simulated clock

	Reads         int64 `json:"device_reads"` // device requests
	Writes        int64 `json:"device_writes"`
	BlocksRead    int64 `json:"blocks_read"`
	BlocksWritten int64 `json:"blocks_written"`
	Flushes       int64 `json:"flushes"`
	Commits       int64 `json:"commits"`
	Checkpoints   int64 `json:"checkpoints"`
	LogEntries    int64 `json:"log_entries"`
	Syncs         int64 `json:"syncs"`    // Sync calls (fsync, fdatasync)
	Discards      int64 `json:"discards"` // Discard calls (punch hole, zero range)

	// Blocks whose physical space was freed because a trim (punch hole,
	// zero range) forgot them, and because their logical address was
	// rewritten elsewhere (all the paper's VLD could know).
	FreedByTrimBlocks      int64 `json:"freed_by_trim_blocks"`
	FreedByOverwriteBlocks int64 `json:"freed_by_overwrite_blocks"`

	LogicalBlocks      int64 `json:"logical_blocks"`
	MappedBlocks       int64 `json:"mapped_blocks"` // logical blocks holding data
	PhysicalBlocks     int64 `json:"physical_blocks"`
	PhysicalFreeBlocks int64 `json:"physical_free_blocks"`

	Recovery *RecoveryStats `json:"recovery,omitempty"` // how the disk was opened
}

// SimTimes is simulated service time split as in Figure 9 of the
// virtual-log paper, in milliseconds.
type SimTimes struct {
	OverheadMs float64 `json:"overhead_ms"` // controller (SCSI) command overhead
	TransferMs float64 `json:"transfer_ms"` // media transfer
	LocateMs   float64 `json:"locate_ms"`   // seek + head switch + rotation
	OtherMs    float64 `json:"other_ms"`
	TotalMs    float64 `json:"total_ms"`
}

func simTimes(b vld.Breakdown) SimTimes {
	return SimTimes{OverheadMs: b.OverheadMs, TransferMs: b.TransferMs, LocateMs: b.LocateMs, OtherMs: b.OtherMs, TotalMs: b.Total()}
}

// RecoveryStats say whether the last stop was clean and what recovery did.
type RecoveryStats struct {
	Clean         bool    `json:"clean"` // the tail record was valid
	ScannedBlocks int64   `json:"scanned_blocks"`
	Entries       int     `json:"entries"`
	Discarded     bool    `json:"discarded_torn_group"`
	WallMs        float64 `json:"wall_ms"` // wall clock
}

// Report is the content of MOUNTPOINT/stats.
type Report struct {
	PID     int                `json:"pid"`
	Mount   string             `json:"mount"`
	Image   string             `json:"image,omitempty"`
	UptimeS float64            `json:"uptime_s"` // wall clock
	Disk    Stats              `json:"disk"`
	FUSE    map[string]OpCount `json:"fuse_requests"` // by request kind
}
