package crashtest

import (
	"fmt"
	"strconv"
)

// Compaction workloads (`--workloads compact`) put the idle-time
// compactor inside ACE-style workloads (issue "compactor": a crash during
// compaction loses nothing). Every seq-1 core op runs twice:
//
//	core op, compact, persist   the compactor starts while the op's
//	                            changes are buffered; vlfs commits the
//	                            whole state with each committed move
//	                            (every step, or a track's last one: see
//	                            compactOp), so that makes the op durable
//	core op, persist, compact   it moves blocks that are durable
//
// where persist is an fsync of the op's target, or sync where the target
// is gone. The setup fragments the image around the file set first
// (compactSetup), so that the compactor has partly filled tracks to empty
// and holes to move their blocks into.

// Filler files of compaction workloads: fillerFiles of fillerSize bytes in
// directory fillerDir, half written before the file set and half after.
const (
	fillerDir   = "F"
	fillerFiles = 12
	fillerSize  = int64(16384)
)

// compactSetup is the setup of a compaction workload: fillers, the file
// set (setupFor(absent)), more fillers, each group committed by a sync so
// that the groups land in different places; then every other filler is
// removed, leaving holes among live blocks.
func compactSetup(absent []string) []Op {
	filler := func(i int) string { return fillerDir + "/" + strconv.Itoa(i) }
	fill := func(from, to int) []Op {
		var ops []Op
		for i := from; i < to; i++ {
			ops = append(ops, Op{"creat", []string{filler(i)}},
				Op{"write", []string{filler(i), "0", strconv.FormatInt(fillerSize, 10)}})
		}
		return append(ops, Op{Kind: "sync"})
	}
	ops := []Op{{"mkdir", []string{fillerDir}}}
	ops = append(ops, fill(0, fillerFiles/2)...)
	ops = append(ops, setupFor(absent)...)
	ops = append(ops, Op{Kind: "sync"})
	ops = append(ops, fill(fillerFiles/2, fillerFiles)...)
	for i := 1; i < fillerFiles; i += 2 {
		ops = append(ops, Op{"unlink", []string{filler(i)}})
	}
	return append(ops, Op{Kind: "sync"})
}

// Compact lists the compaction workloads in a fixed order, named
// compact-NNNN.
func Compact() []Workload {
	var out []Workload
	for _, c := range coreOps() {
		w, ok := build("", []step{{c, "fsync-file"}})
		if !ok {
			w, ok = build("", []step{{c, "sync"}})
		}
		if !ok {
			continue
		}
		core, persist := w.Ops[0], w.Ops[1]
		for _, ops := range [][]Op{{core, compactOp(len(out)), persist}, {core, persist, compactOp(len(out) + 1)}} {
			out = append(out, Workload{
				Name:  fmt.Sprintf("compact-%04d", len(out)),
				Setup: compactSetup(c.absent),
				Ops:   ops,
			})
		}
	}
	return out
}

// compactOp is every other workload's compaction: the default step count
// (even: the file system commits once per source track) or one step more
// (odd: it commits every step; see executor.compact), so that both ways
// meet crashes.
func compactOp(n int) Op {
	if n%2 == 0 {
		return Op{Kind: "compact"}
	}
	return Op{Kind: "compact", Args: []string{fmt.Sprint(defaultCompactSteps + 1)}}
}
