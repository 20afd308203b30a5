package crashtest

import (
	"fmt"
	"math/rand"
	"path"
	"slices"
	"strconv"
)

// The ACE-style file set: two directories of two files each, under the
// root. setupSize is each file's starting length.
func fileDirs() []string { return []string{"A", "B"} }
func fileSet() []string  { return []string{"A/foo", "A/bar", "B/foo", "B/bar"} }

const setupSize = int64(8192)

// core is one core operation with the paths it needs absent beforehand.
type core struct {
	op     Op
	absent []string // paths the setup must not create
	target string   // the object the persistence choice is about
}

// persistChoices are the persistence choices after a core op (ACE's):
// fsync of the file, of its parent, of a sibling; fdatasync of the file;
// sync; none.
func persistChoices() []string {
	return []string{"fsync-file", "fsync-parent", "fsync-sibling", "fdatasync", "sync", "none"}
}

// coreOps lists every core op over the file set, in a fixed order.
func coreOps() []core {
	var out []core
	for _, f := range fileSet() {
		out = append(out, fileOps(f)...)
	}
	for _, d := range fileDirs() {
		c := d + "/C"
		out = append(out, core{op: Op{"mkdir", []string{c}}, target: c})
	}
	for _, src := range fileSet() {
		for _, dst := range fileSet() {
			if src == dst {
				continue
			}
			out = append(out,
				core{op: Op{"link", []string{src, dst}}, absent: []string{dst}, target: dst},
				core{op: Op{"rename", []string{src, dst}}, absent: []string{dst}, target: dst},
				core{op: Op{"rename", []string{src, dst}}, target: dst},
				core{op: Op{"copy", []string{src, "1000", "5000", dst, "3000"}}, target: dst})
		}
	}
	out = append(out,
		core{op: Op{"rename", []string{"B", "A/C"}}, target: "A/C"},
		core{op: Op{"rename", []string{"A/foo", "B/C"}}, target: "B/C"})
	return out
}

// deepOffset is past the direct and single-indirect 4 KiB blocks of both
// inode layouts (12 + 509, and version 4's 8 + 339): a
// write there makes a double-indirect root and a leaf under it, which
// file-system version 2 names by node number through the inode map.
const deepOffset = 2100 << 10

// fileOps are the core ops acting on one file of the set.
func fileOps(f string) []core {
	n := strconv.FormatInt
	ops := []Op{
		{"write", []string{f, n(setupSize, 10), "4096"}},     // append, aligned
		{"write", []string{f, "0", "4096"}},                  // overwrite, aligned
		{"write", []string{f, "1000", "5000"}},               // overwrite, unaligned, across blocks
		{"write", []string{f, n(setupSize+100, 10), "3000"}}, // unaligned append past a hole
		{"write", []string{f, n(deepOffset, 10), "4096"}},    // below the double-indirect root: a numbered leaf
		{"falloc", []string{f, "0", "40000"}},                // extends the file
		{"falloc", []string{f, "4096", "40000", "keep"}},     // inside only
		{"falloc", []string{f, "0", "5000", "punch"}},        // a whole block freed, part of the next zeroed
		{"falloc", []string{f, "1000", "40000", "zero"}},     // zeros, extending the file
		{"falloc", []string{f, "0", "1048576"}},              // past a commit's inline bytes: zero blocks in unlocked batches
		{"truncate", []string{f, "1000"}},                    // shrink
		{"truncate", []string{f, "30000"}},                   // grow
		{"setxattr", []string{f, "user.new", "v1"}},
		{"setxattr", []string{f, "user.k", "changed"}},
		{"removexattr", []string{f, "user.k"}},
		{"unlink", []string{f}},
		{"chmod", []string{f, "600"}},
	}
	out := make([]core, 0, len(ops)+3)
	for _, o := range ops {
		out = append(out, core{op: o, target: f})
	}
	return append(out,
		core{op: Op{"creat", []string{f}}, absent: []string{f}, target: f},
		core{op: Op{"tmpfile", []string{f, "6000"}}, absent: []string{f}, target: f},
		core{op: Op{"symlink", []string{"../target", f}}, absent: []string{f}, target: f})
}

// setupFor builds the setup creating the file set minus the absent paths:
// directories, files of setupSize bytes, an xattr user.k on each file.
func setupFor(absent []string) []Op {
	var ops []Op
	for _, d := range fileDirs() {
		ops = append(ops, Op{"mkdir", []string{d}})
	}
	for _, f := range fileSet() {
		if slices.Contains(absent, f) {
			continue
		}
		ops = append(ops, Op{"creat", []string{f}},
			Op{"write", []string{f, "0", strconv.FormatInt(setupSize, 10)}},
			Op{"setxattr", []string{f, "user.k", "v0"}})
	}
	return ops
}

// persistOp is the persistence choice for target; ok is false when it
// makes no sense (a sibling that does not exist, a file that is gone).
func persistOp(choice, target string, exists func(string) bool) (Op, bool) {
	switch choice {
	case "none":
		return Op{}, true
	case "sync":
		return Op{Kind: "sync"}, true
	case "fsync-parent":
		return Op{"fsync", []string{parentOf(target)}}, true
	case "fsync-sibling":
		s := sibling(target)
		return Op{"fsync", []string{s}}, s != "" && exists(s)
	case "fsync-file":
		return Op{"fsync", []string{target}}, exists(target)
	case "fdatasync":
		return Op{"fdatasync", []string{target}}, exists(target)
	}
	return Op{}, false
}

func parentOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// sibling is another member of the file set in target's directory.
func sibling(target string) string {
	for _, f := range fileSet() {
		if f != target && parentOf(f) == parentOf(target) {
			return f
		}
	}
	return ""
}

// step is one core op with its persistence choice.
type step struct {
	c      core
	choice string
}

// build makes the workload of a sequence of steps. It simulates the
// namespace (which paths exist) to drop persistence choices that name
// nothing; ok is false if one is dropped.
func build(name string, steps []step) (Workload, bool) {
	var absent []string
	for _, s := range steps {
		absent = append(absent, s.c.absent...)
	}
	w := Workload{Name: name, Setup: setupFor(absent)}
	ns := newNamespace(w.Setup)
	for _, s := range steps {
		w.Ops = append(w.Ops, s.c.op)
		ns.apply(s.c.op)
		p, ok := persistOp(s.choice, s.c.target, ns.exists)
		if !ok {
			return Workload{}, false
		}
		if p.Kind != "" {
			w.Ops = append(w.Ops, p)
		}
	}
	return w, true
}

// Seq1 lists every seq-1 workload: each core op with each persistence
// choice that makes sense, in a fixed order, named seq1-NNNN.
func Seq1() []Workload {
	var out []Workload
	for _, c := range coreOps() {
		for _, ch := range persistChoices() {
			if w, ok := build(fmt.Sprintf("seq1-%04d", len(out)), []step{{c, ch}}); ok {
				out = append(out, w)
			}
		}
	}
	return out
}

// Seq2Sample draws n seq-2 workloads (two core ops, each with a persistence
// choice) reproducibly from seed. Pairs whose persistence choices make no
// sense are redrawn. Names are seq2-SEED-NNNN.
func Seq2Sample(n int, seed int64) []Workload {
	return seqSample(2, n, seed)
}

// SeqSample draws n seq-k workloads (k = 1..3) reproducibly from seed.
func seqSample(k, n int, seed int64) []Workload {
	rng := rand.New(rand.NewSource(seed))
	cores, choices := coreOps(), persistChoices()
	out := make([]Workload, 0, n)
	for tries := 0; len(out) < n && tries < 100*n+100; tries++ {
		steps := make([]step, k)
		for i := range steps {
			steps[i] = step{cores[rng.Intn(len(cores))], choices[rng.Intn(len(choices))]}
		}
		if w, ok := build(fmt.Sprintf("seq%d-%d-%04d", k, seed, len(out)), steps); ok {
			out = append(out, w)
		}
	}
	return out
}

// SeqSample draws n seq-k workloads (k = 1, 2 or 3) reproducibly from seed.
func SeqSample(k, n int, seed int64) ([]Workload, error) {
	if k < 1 || k > 3 {
		return nil, fmt.Errorf("seq%d: sequences have 1 to 3 core ops: %w", k, ErrBadWorkload)
	}
	return seqSample(k, n, seed), nil
}
