package fusefs

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// WriteText prints the report for people, one aligned table per section.
func (r Report) WriteText(w io.Writer) error {
	sections := []func(io.Writer){r.textHeader, r.textOps, r.textDevice, r.textSim, r.textSpace, r.textCompactor, r.textWall, r.textFUSE}
	for i, section := range sections {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		section(tw)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (r Report) textHeader(w io.Writer) {
	if r.Source == "mount" {
		fmt.Fprintf(w, "mounted\t%s (pid %d, up %.1f s wall)\n", r.Mountpoint, r.PID, r.UptimeWallS)
	} else {
		fmt.Fprintf(w, "image\t%s (not mounted; counters since it was opened read-only)\n", r.Image)
	}
	if r.Source == "mount" && r.Image != "" {
		fmt.Fprintf(w, "image\t%s\n", r.Image)
	}
	fmt.Fprintf(w, "clock\t%s\n", r.Clock)
}

func (r Report) textOps(w io.Writer) {
	fmt.Fprintf(w, "operation\tcount\tbytes\n")
	for _, k := range sortedKeys(r.Ops) {
		fmt.Fprintf(w, "  %s\t%d\t%s\n", k, r.Ops[k].Count, bytesText(r.Ops[k].Bytes))
	}
	fmt.Fprintf(w, "fsyncs\t%d\t(commits %d, served by another's commit %d, of which found in a snapshot already taken %d, joined one before its snapshot %d)\n",
		r.Fsyncs, r.Commits, r.GroupedSyncs, r.CoveredSyncs, r.JoinedSyncs)
	fmt.Fprintf(w, "commits\tmade room %d\tfailed %d\n", r.RoomCommits, r.FailedCommits)
	if r.FSVersion >= ondisk.FSVersionRecords {
		fmt.Fprintf(w, "log records\t%d commits as records\t%d standing\tmount replayed %d in %.1f ms\n",
			r.RecordCommits, r.Records, r.ReplayedRecords, r.ReplayMs)
	}
	if r.CommitError != "" {
		fmt.Fprintf(w, "COMMIT FAILING\tchanges since the last good commit are not durable: %s\n", r.CommitError)
	}
	fmt.Fprintf(w, "dirty\t%s\tinodes %d, blocks written through %d\n", bytesText(r.DirtyBytes), r.Inodes, r.WriteThroughBlocks)
	fmt.Fprintf(w, "write-out\tbatches without the lock %d\tblocks changed while written %d\n", r.UnlockedBatches, r.SupersededBlocks)
	fmt.Fprintf(w, "loads\tindirect blocks without the lock %d\tinode blocks and directories without the lock %d\tpartial writes' blocks without the lock %d\tcompactor blocks without the lock %d\n", r.UnlockedNodeLoads, r.UnlockedMetaLoads, r.UnlockedDataLoads, r.UnlockedCompactBlocks)
	fmt.Fprintf(w, "format\tfile-system version %d\tindirect blocks in the node map %d\n", r.FSVersion, r.Nodes)
	if r.FSVersion >= ondisk.FSVersionSums {
		fmt.Fprintf(w, "checksums\tdata blocks read that failed their checksum %d\t(each answered EIO and logged)\n", r.ChecksumErrors)
	}
	if r.FSVersion >= ondisk.FSVersionUnwritten {
		fmt.Fprintf(w, "fallocate\tunwritten blocks reserved %d\t(space kept, nothing written)\n", r.Unwritten)
	}
}

func (r Report) textDevice(w io.Writer) {
	d := r.Device
	fmt.Fprintf(w, "device\trequests\tblocks\n")
	fmt.Fprintf(w, "  reads\t%d\t%d\n", d.Reads, d.BlocksRead)
	fmt.Fprintf(w, "  writes\t%d\t%d\n", d.Writes, d.BlocksWritten)
	fmt.Fprintf(w, "  flushes\t%d\t\n", d.Flushes)
}

func (r Report) textSim(w io.Writer) {
	fmt.Fprintf(w, "simulated ms\toverhead\ttransfer\tlocate\tother\ttotal\n")
	for _, row := range []struct {
		name string
		t    SimTime
	}{{"  all", r.Sim}, {"  writes", r.WriteSim}} {
		fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", row.name,
			row.t.OverheadMs, row.t.TransferMs, row.t.LocateMs, row.t.OtherMs, row.t.TotalMs)
	}
	fmt.Fprintf(w, "mean write\t%.3f ms simulated per device write\n", r.MeanWriteMs)
	fmt.Fprintf(w, "simulated clock\t%.3f ms\n", r.SimNowMs)
}

func (r Report) textSpace(w io.Writer) {
	fmt.Fprintf(w, "utilisation\t%.1f%% (%d of %d blocks free)\n", 100*r.Utilization, r.FreeBlocks, r.TotalBlocks)
	fmt.Fprintf(w, "virtual log\t%d entries written, %d live since the last checkpoint, %d checkpoints\n",
		r.LogEntries, r.LogLength, r.Checkpoints)
	fmt.Fprintf(w, "piece copies\t%d written at rest, %d pieces in one block now, %d skipped (no room)\n",
		r.PieceCopies, r.SingleCopyPieces, r.PieceCopiesSkipped)
	fmt.Fprintf(w, "write batching\t%s, %d blocks per batch, reads first between batches\n", r.BatchPolicy, r.BatchBlocks)
	fmt.Fprintf(w, "placement\t%s, head model %s\n", r.Placement, r.HeadModel)
	fmt.Fprintf(w, "allocation\t%.0f ns CPU per block placed (%d blocks, %d decisions)\n", r.AllocNsPerBlock, r.AllocBlocks, r.AllocDecisions)
}

func (r Report) textFUSE(w io.Writer) {
	if r.Source != "mount" {
		fmt.Fprintf(w, "FUSE requests: none (not mounted)\n")
		return
	}
	ra := ""
	if r.ReadaheadKB > 0 {
		ra = fmt.Sprintf(", read-ahead %d KiB", r.ReadaheadKB)
	}
	fmt.Fprintf(w, "FUSE request\tcount\terrors\twall µs: mean\tp50\tp99\t(total %d, %d readers%s)\n", r.FUSERequests, r.Readers, ra)
	for _, k := range sortedKeys(r.FUSE) {
		c := r.FUSE[k]
		fmt.Fprintf(w, "  %s\t%d\t%d\t%.1f\t%.1f\t%.1f\n", k, c.Count, c.Errors, c.WallUsMean, c.WallUsP50, c.WallUsP99)
	}
	fmt.Fprintf(w, "  (errors: requests answered with an errno, as a lookup of a missing name or a flush after a failed write is; not failures of vlfs)\n")
}

// textWall prints where fsyncs spend wall-clock time: the rows that have
// samples, or one line saying there are none yet.
func (r Report) textWall(w io.Writer) {
	l := r.Wall
	rows := []struct {
		name string
		s    wallhist.Summary
	}{
		{"  fsync call", l.Fsync}, {"  commit", l.Commit},
		{"    data out (no FS lock)", l.CommitWriteOut}, {"    plan (FS lock)", l.CommitPlan},
		{"    volume part", l.CommitVolume}, {"  device write", l.DeviceWrite}, {"  device flush", l.DeviceFlush},
	}
	header := false
	for _, row := range rows {
		s := row.s
		if s.Count == 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "wall µs\tcount\tmean\tp50\tp90\tp99\n")
			header = true
		}
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\n", row.name, s.Count, s.MeanUs, s.P50Us, s.P90Us, s.P99Us)
	}
	if !header {
		fmt.Fprintf(w, "wall µs\tnone yet (no fsync, commit or device write timed)\n")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// bytesText prints a byte count with a binary unit.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n), "KMGTPE"
	i := -1
	for f >= unit && i < len(u)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, u[i])
}
