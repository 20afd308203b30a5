package crashtest

import (
	"fmt"
	"strings"

	"github.com/vlfs/vlfs/vlfs"
)

// Rules a crash state can break; a Failure names one.
const (
	RulePanic  = "panic"          // the harness caught a panic in vlfs
	RuleMount  = "mount"          // recovery (the normal mount path) failed
	RuleCheck  = "check"          // (*vlfs.FS).Check found damage after recovery
	RuleRead   = "read"           // the recovered tree could not be read back
	RuleLost   = "lost-persisted" // an acknowledged fsync/sync was undone
	RuleRename = "rename-atomic"  // a rename shows both names or neither
	RuleState  = "not-a-history-state"
	RuleAfter  = "after-recovery" // the recovered file system broke when used (write, remount, check)
)

// Point is the oracle's view after one op: the tree the file system showed,
// and, for a persistence op that returned without error, how many device
// flushes had been recorded when it returned (the point is durable in
// every crash state that has at least that many flushes).
type Point struct {
	Label string // "setup", or "op N: text"
	Tree  Tree
	Acked int // -1 unless an acknowledged persistence point
}

// Oracle is the history of a recorded run: Points[0] is the durable
// starting state (after setup), then one point per op.
//
// The rule it encodes (docs/durability.md, docs/crashtest.md): a crash
// state must recover to exactly the tree of some point i >= need, where
// need is the last acknowledged persistence point whose flushes the state
// holds. That covers POSIX's promises (fsync'd files have their content,
// size, mode, link count and directory entries; a rename is old or new)
// and vlfs's stronger one (a crash loses a suffix of the history, never
// reorders it).
type Oracle struct {
	Points []Point
	Ops    []Op // the recorded ops, for the rename rule
}

// need is the index of the newest point that a crash state with the given
// number of flushes must not lose.
func (o *Oracle) need(flushes int) int {
	n := 0
	for i, p := range o.Points {
		if p.Acked >= 0 && p.Acked <= flushes {
			n = i
		}
	}
	return n
}

// Verdict is the oracle's judgement of one recovered tree.
type Verdict struct {
	OK      bool
	Matched int    // the point matched, when OK
	Rule    string // when not OK
	Detail  string
}

// Judge compares the tree recovered from a crash state holding the given
// number of flushes with the history.
func (o *Oracle) Judge(got Tree, flushes int) Verdict {
	need := o.need(flushes)
	for i := len(o.Points) - 1; i >= need; i-- {
		if got.Equal(o.Points[i].Tree) {
			return Verdict{OK: true, Matched: i}
		}
	}
	if v, bad := o.renameRule(got, need); bad {
		return v
	}
	for i := need - 1; i >= 0; i-- {
		if got.Equal(o.Points[i].Tree) {
			return Verdict{Rule: RuleLost, Detail: fmt.Sprintf("recovered the state of point %d (%s), but point %d (%s) was acknowledged durable",
				i, o.Points[i].Label, need, o.Points[need].Label)}
		}
	}
	best := need
	for i := need; i < len(o.Points); i++ {
		if distance(got, o.Points[i].Tree) < distance(got, o.Points[best].Tree) {
			best = i
		}
	}
	return Verdict{Rule: RuleState, Detail: fmt.Sprintf("matches no state from point %d (%s) on; closest is point %d (%s): %s",
		need, o.Points[need].Label, best, o.Points[best].Label, strings.Join(diff(got, o.Points[best].Tree, 6), "; "))}
}

// renameRule checks each rename of the workload: if the recovered tree has
// the renamed object under both names, or under neither, and no allowed
// history state shows the same, the rename was not atomic.
func (o *Oracle) renameRule(got Tree, need int) (Verdict, bool) {
	for i, op := range o.Ops {
		if op.Kind != "rename" {
			continue
		}
		before := o.Points[i].Tree // point i is the state just before op i
		src, ok := before[op.Args[0]]
		if !ok {
			continue
		}
		g := namesOf(got, src.Ino, op.Args[0], op.Args[1])
		if g == 1 || o.anyAllowed(need, func(t Tree) bool { return namesOf(t, src.Ino, op.Args[0], op.Args[1]) == g }) {
			continue
		}
		what := "both names"
		if g == 0 {
			what = "neither name"
		}
		return Verdict{Rule: RuleRename, Detail: fmt.Sprintf("op %d (%s): the renamed object is under %s", i+1, op, what)}, true
	}
	return Verdict{}, false
}

// namesOf counts how many of the two paths name ino in t.
func namesOf(t Tree, ino vlfs.Ino, a, b string) int {
	n := 0
	for _, p := range []string{a, b} {
		if e, ok := t[p]; ok && e.Ino == ino {
			n++
		}
	}
	return n
}

func (o *Oracle) anyAllowed(need int, f func(Tree) bool) bool {
	for _, p := range o.Points[need:] {
		if f(p.Tree) {
			return true
		}
	}
	return false
}
