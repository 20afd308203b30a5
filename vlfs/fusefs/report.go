package fusefs

import (
	"os"
	"time"

	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs"
)

// Report is what `vlfs stats` shows and what the stats file holds, as JSON.
// Times name their clock: *_wall_* is wall-clock time, sim_* is the
// simulated disk's time (virtual or real-time-emulated, see Clock).
type Report struct {
	Source      string  `json:"source"` // "mount" (live) or "image" (opened read-only)
	Image       string  `json:"image,omitempty"`
	Mountpoint  string  `json:"mountpoint,omitempty"`
	PID         int     `json:"pid,omitempty"`
	UptimeWallS float64 `json:"uptime_wall_s,omitempty"`
	Clock       string  `json:"clock"` // the volume's clock: "simulated" or "real-time"

	Ops          map[string]OpBytes `json:"ops"` // file-system operations by kind
	Fsyncs       int64              `json:"fsyncs"`
	Commits      int64              `json:"commits"`
	GroupedSyncs int64              `json:"grouped_syncs"` // fsyncs served by another caller's commit
	// fsyncs that found nothing changed since a commit's snapshot, and
	// waited for that commit alone (or for none)
	CoveredSyncs int64 `json:"covered_syncs"`
	// fsyncs that joined the running commit before its snapshot
	JoinedSyncs int64 `json:"joined_syncs"`
	// commits made before a change so that the next commit fits in the
	// free blocks (a bulk delete on a full disk)
	RoomCommits   int64  `json:"room_commits"`
	FailedCommits int64  `json:"failed_commits"`
	CommitError   string `json:"commit_error,omitempty"` // the last commit's error: its changes are not durable
	// file-system version 3: commits made as log records (data and one
	// record), records standing since the last full commit (a crash now
	// replays them), and what mount replayed and how long it took
	RecordCommits   int64   `json:"record_commits"`
	Records         int64   `json:"records"`
	ReplayedRecords int     `json:"replayed_records"`
	ReplayMs        float64 `json:"replay_ms"`
	DirtyBytes      int64   `json:"dirty_bytes"`
	// data blocks of large writes sent to the image unbuffered (-o write_through)
	WriteThroughBlocks int64 `json:"write_through_blocks"`
	// batches of buffered data written with the file system's lock
	// released, and blocks of them changed meanwhile (written again)
	UnlockedBatches  int64 `json:"unlocked_batches"`
	SupersededBlocks int64 `json:"superseded_blocks"`
	// indirect blocks reads loaded, and inode blocks and directories
	// lookups, getattrs and readdirs loaded, with the lock released
	UnlockedNodeLoads int64 `json:"unlocked_node_loads"`
	UnlockedMetaLoads int64 `json:"unlocked_meta_loads"`
	// old blocks partial writes read with the lock released
	UnlockedDataLoads int64 `json:"unlocked_data_loads"`
	// blocks the compactor read or wrote with the lock released
	UnlockedCompactBlocks int64 `json:"unlocked_compact_blocks"`
	// data blocks read that did not match their pointer's checksum
	// (version 4), each answered EIO and logged
	ChecksumErrors int64 `json:"checksum_errors"`
	// blocks fallocate reserved, kept as unwritten pointers (version 5)
	Unwritten int64  `json:"unwritten_blocks"`
	Inodes    int64  `json:"inodes"`
	FSVersion uint32 `json:"fs_version"` // 1: indirect blocks by address; 2: through the inode map; 3: log records; 4: data checksums; 5: unwritten reservations
	Nodes     int64  `json:"nodes"`      // indirect blocks the map names (version 2)

	Device      DeviceCounts `json:"device"`
	Sim         SimTime      `json:"sim"`       // all simulated service time
	WriteSim    SimTime      `json:"write_sim"` // the part spent on writes
	SimNowMs    float64      `json:"sim_now_ms"`
	MeanWriteMs float64      `json:"mean_write_sim_ms"` // simulated time per device write request

	Utilization float64 `json:"utilization"` // fraction of client blocks in use
	TotalBlocks int64   `json:"total_blocks"`
	FreeBlocks  int64   `json:"free_blocks"`
	LogEntries  int64   `json:"log_entries"` // virtual-log entries written
	LogLength   int64   `json:"log_length"`  // live entries since the last checkpoint
	Checkpoints int64   `json:"checkpoints"`
	// Piece copies (issue 34): written by checkpoints at rest (idle time,
	// unmount), pieces skipped for want of room, pieces in one block now.
	PieceCopies        int64  `json:"piece_copies"`
	PieceCopiesSkipped int64  `json:"piece_copies_skipped"`
	SingleCopyPieces   int64  `json:"single_copy_pieces"`
	BatchPolicy        string `json:"batch_policy"` // write batching in force (vlfs mount --batch)
	BatchBlocks        int    `json:"batch_blocks"` // its batch size in blocks; 0 = FIFO
	Placement          string `json:"placement"`    // fixed at mkfs (docs/placement.md)
	HeadModel          string `json:"head_model"`   // what placement writes by (vlfs mount --head)
	// The allocator: decisions made, blocks placed, and CPU (wall time of
	// the searches, which do no I/O) per block placed.
	AllocDecisions  int64   `json:"alloc_decisions"`
	AllocBlocks     int64   `json:"alloc_blocks"`
	AllocNsPerBlock float64 `json:"alloc_ns_per_block"`

	Compactor *CompactorReport `json:"compactor,omitempty"` // nil: off (report_compactor.go)

	Wall WallLatency `json:"wall_latency"` // where fsyncs spend wall-clock time

	FUSE         map[string]OpCount `json:"fuse,omitempty"` // requests by opcode
	FUSERequests int64              `json:"fuse_requests"`
	Readers      int                `json:"fuse_readers,omitempty"`
	// OpenForWriting is the number of files a handle that may write
	// holds open, as the server has seen (a close's RELEASE reaches it
	// after close(2) returns).
	OpenForWriting int `json:"open_for_writing"`
	// ReadaheadKB is the kernel's read-ahead window of the mount (bdi.go).
	ReadaheadKB int `json:"kernel_readahead_kb,omitempty"`
}

// OpBytes count one kind of file-system operation.
type OpBytes struct {
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

// DeviceCounts are the volume's device requests.
type DeviceCounts struct {
	Reads         int64 `json:"reads"`
	Writes        int64 `json:"writes"`
	BlocksRead    int64 `json:"blocks_read"`
	BlocksWritten int64 `json:"blocks_written"`
	Flushes       int64 `json:"flushes"`
}

// WallLatency is wall-clock time, as count, mean and quantiles in µs, of
// fsync calls, of commits and their two parts (vlfs.WallStats says what
// each span holds), and of each device write request and each device flush
// (fdatasync of the image), whatever issued them.
type WallLatency struct {
	Fsync          wallhist.Summary `json:"fsync"`
	Commit         wallhist.Summary `json:"commit"`
	CommitWriteOut wallhist.Summary `json:"commit_writeout"`
	CommitPlan     wallhist.Summary `json:"commit_plan"`
	CommitVolume   wallhist.Summary `json:"commit_volume"`
	DeviceWrite    wallhist.Summary `json:"device_write"`
	DeviceFlush    wallhist.Summary `json:"device_flush"`
}

func wallLatency(st vlfs.Stats) WallLatency {
	return WallLatency{
		Fsync: st.Wall.Fsync.Summary(), Commit: st.Wall.Commit.Summary(),
		CommitWriteOut: st.Wall.CommitWriteOut.Summary(), CommitPlan: st.Wall.CommitPlan.Summary(), CommitVolume: st.Wall.CommitVolume.Summary(),
		DeviceWrite: st.Vol.WriteWall.Summary(), DeviceFlush: st.Vol.FlushWall.Summary(),
	}
}

// SimTime is simulated service time split as in the virtual-log paper's
// Figure 9, in simulated milliseconds.
type SimTime struct {
	OverheadMs float64 `json:"overhead_ms"` // controller (SCSI) command overhead
	TransferMs float64 `json:"transfer_ms"`
	LocateMs   float64 `json:"locate_ms"` // seek + head switch + rotation
	OtherMs    float64 `json:"other_ms"`
	TotalMs    float64 `json:"total_ms"`
}

func simTime(b vld.Breakdown) SimTime {
	return SimTime{b.OverheadMs, b.TransferMs, b.LocateMs, b.OtherMs, b.Total()}
}

// ReportOf builds a report from file-system counters alone (Source
// "image"); a Server adds its FUSE counters.
func ReportOf(st vlfs.Stats) Report {
	v := st.Vol
	r := Report{
		Source: "image", Clock: v.Clock,
		Ops:    make(map[string]OpBytes, len(st.Ops)),
		Fsyncs: st.Fsyncs, Commits: st.Commits, GroupedSyncs: st.GroupedSyncs,
		CoveredSyncs: st.CoveredSyncs, JoinedSyncs: st.JoinedSyncs, RoomCommits: st.RoomCommits, FailedCommits: st.FailedCommits, CommitError: st.CommitError,
		RecordCommits: st.RecordCommits, Records: st.Records, ReplayedRecords: st.ReplayedRecords, ReplayMs: st.ReplayMs,
		DirtyBytes: st.DirtyBytes, WriteThroughBlocks: st.WriteThroughBlocks, Inodes: st.Inodes,
		UnlockedBatches: st.UnlockedBatches, SupersededBlocks: st.SupersededBlocks, ChecksumErrors: st.ChecksumErrors, Unwritten: st.Unwritten,
		UnlockedNodeLoads: st.UnlockedNodeLoads, UnlockedMetaLoads: st.UnlockedMetaLoads, UnlockedDataLoads: st.UnlockedDataLoads,
		UnlockedCompactBlocks: st.UnlockedCompactBlocks,
		FSVersion:             st.FSVersion, Nodes: st.Nodes,
		Device: DeviceCounts{v.Reads, v.Writes, v.BlocksRead, v.BlocksWritten, v.Flushes},
		Sim:    simTime(v.Sim), WriteSim: simTime(v.WriteSim), SimNowMs: v.SimNowMs,
		Utilization: st.Utilization, TotalBlocks: v.TotalBlocks, FreeBlocks: v.FreeBlocks,
		LogEntries: v.LogEntries, LogLength: v.LogLength, Checkpoints: v.Checkpoints,
		PieceCopies: v.PieceCopies, PieceCopiesSkipped: v.PieceCopiesSkipped, SingleCopyPieces: v.SingleCopyPieces,
		BatchPolicy: v.BatchPolicy, BatchBlocks: v.BatchBlocks,
		Placement: v.Placement, HeadModel: v.HeadModel,
		AllocDecisions: v.AllocDecisions, AllocBlocks: v.AllocBlocks,
		Wall: wallLatency(st),
	}
	for k, o := range st.Ops {
		r.Ops[k] = OpBytes{o.Count, o.Bytes}
	}
	if v.AllocBlocks > 0 {
		r.AllocNsPerBlock = float64(v.AllocNs) / float64(v.AllocBlocks)
	}
	if v.Writes > 0 {
		r.MeanWriteMs = v.WriteSim.Total() / float64(v.Writes)
	}
	return r
}

// Report returns the live counters of the mount.
func (s *Server) Report() Report {
	r := ReportOf(s.fs.Stats())
	if c := s.opt.Compactor; c != nil {
		cs := c.Stats()
		r.Compactor = compactorReport(&cs)
	}
	r.Source = "mount"
	r.Image = s.opt.Image
	r.Mountpoint = s.dir
	r.PID = os.Getpid()
	r.UptimeWallS = time.Since(s.started).Seconds()
	r.FUSE = s.ops.snapshot()
	for _, c := range r.FUSE {
		r.FUSERequests += c.Count
	}
	_, r.Readers = s.pool.size()
	r.OpenForWriting = s.writers.files()
	r.ReadaheadKB = s.readaheadKB
	return r
}
