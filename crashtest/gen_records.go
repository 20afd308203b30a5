package crashtest

import (
	"fmt"
	"math/rand"
	"strconv"
)

// Record workloads (`--workloads records`, issue 33): file-system version
// 3 commits a synchronous update of regular files as its data and one log
// record, and defers the blocks that point at the data to a later full
// commit; recovery replays the records. These workloads interleave many
// small fsyncs of one file (overwrites, appends, writes deep below the
// double-indirect root, each persisted by fsync or fdatasync, so that
// most commit as records) with the changes that must end an epoch
// (truncates, hole punches, renames, a write to a second file, sync),
// so that crash states fall between records, inside epochs and across
// the full commits that end them.

// recordSteps is how many steps a record workload has.
const recordSteps = 10

// Records draws n record workloads reproducibly from seed, named
// records-SEED-NNNN.
func Records(n int, seed int64) []Workload {
	rng := rand.New(rand.NewSource(seed))
	out := make([]Workload, 0, n)
	for len(out) < n {
		out = append(out, recordWorkload(fmt.Sprintf("records-%d-%04d", seed, len(out)), rng))
	}
	return out
}

// recordWorkload is one record workload: the file set, then recordSteps
// changes of one file (which renames move about) each mostly persisted.
func recordWorkload(name string, rng *rand.Rand) Workload {
	w := Workload{Name: name, Setup: setupFor(nil)}
	f := fileSet()[rng.Intn(len(fileSet()))]
	size := setupSize
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for range recordSteps {
		var op Op
		switch k := rng.Intn(20); {
		case k < 6: // overwrite inside the file
			off := rng.Int63n(size)
			op = Op{"write", []string{f, n(off), n(1 + rng.Int63n(6000))}}
		case k < 10: // append
			l := 1 + rng.Int63n(9000)
			op = Op{"write", []string{f, n(size), n(l)}}
			size += l
		case k < 12: // below the double-indirect root
			l := 1 + rng.Int63n(5000)
			op = Op{"write", []string{f, n(deepOffset + rng.Int63n(8192)), n(l)}}
			size = max(size, deepOffset+8192+l)
		case k < 14: // shrink or grow
			size = rng.Int63n(size + 1)
			op = Op{"truncate", []string{f, n(size)}}
		case k < 15:
			op = Op{"falloc", []string{f, "0", n(1 + rng.Int63n(8192)), "punch"}}
		case k < 17: // the file moves to a name that may exist (replacing it)
			g := fileSet()[rng.Intn(len(fileSet()))]
			if g == f {
				continue
			}
			op = Op{"rename", []string{f, g}}
			f = g
		case k < 18: // another file's write in the same commit
			g := fileSet()[rng.Intn(len(fileSet()))]
			if g == f {
				continue
			}
			w.Ops = append(w.Ops, Op{"write", []string{g, "0", "100"}})
			op = Op{"write", []string{f, "0", n(1 + rng.Int63n(4096))}}
		default:
			op = Op{"write", []string{f, n(rng.Int63n(size)), "512"}}
			w.Ops = append(w.Ops, op, Op{Kind: "sync"})
			continue
		}
		w.Ops = append(w.Ops, op)
		switch p := rng.Intn(10); {
		case p < 5:
			w.Ops = append(w.Ops, Op{"fsync", []string{f}})
		case p < 8:
			w.Ops = append(w.Ops, Op{"fdatasync", []string{f}})
		case p < 9:
			w.Ops = append(w.Ops, Op{"fsync", []string{parentOf(f)}})
		}
	}
	return w
}
