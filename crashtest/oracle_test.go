package crashtest

import (
	"testing"

	"github.com/vlfs/vlfs/vlfs"
)

func file(ino int, data string) Entry {
	return Entry{Type: 'f', Mode: 0o100644, Nlink: 1, Size: uint64(len(data)), Data: data, Ino: inoOf(ino)}
}

// TestJudge: each rule of the oracle, on hand-made histories.
func TestJudge(t *testing.T) {
	dir := Entry{Type: 'd', Mode: 0o40755, Nlink: 2, Ino: inoOf(2)}
	start := Tree{"A": dir, "A/foo": file(5, "old")}
	renamed := Tree{"A": dir, "A/bar": file(5, "old")}
	written := Tree{"A": dir, "A/bar": file(5, "new!")}
	o := &Oracle{
		Ops: []Op{{"rename", []string{"A/foo", "A/bar"}}, {"fsync", []string{"A"}}, {"write", []string{"A/bar", "0", "4"}}},
		Points: []Point{
			{Label: "setup", Tree: start, Acked: 0},
			{Label: "op 1", Tree: renamed, Acked: -1},
			{Label: "op 2", Tree: renamed, Acked: 3},
			{Label: "op 3", Tree: written, Acked: -1},
		},
	}
	both := Tree{"A": dir, "A/foo": file(5, "old"), "A/bar": file(5, "old")}
	neither := Tree{"A": dir}
	torn := Tree{"A": dir, "A/bar": file(5, "ne")}
	cases := []struct {
		name    string
		got     Tree
		flushes int
		rule    string
	}{
		{"before the fsync: old state allowed", start, 2, ""},
		{"before the fsync: new state allowed", written, 2, ""},
		{"after the fsync: renamed", renamed, 3, ""},
		{"after the fsync: unforced write survived", written, 5, ""},
		{"after the fsync: rename undone", start, 3, RuleLost},
		{"both names", both, 0, RuleRename},
		{"neither name", neither, 0, RuleRename},
		{"torn content", torn, 3, RuleState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := o.Judge(c.got, c.flushes)
			if c.rule == "" && !v.OK {
				t.Fatalf("rejected: %s: %s", v.Rule, v.Detail)
			}
			if c.rule != "" && (v.OK || v.Rule != c.rule) {
				t.Fatalf("got %+v, want rule %s", v, c.rule)
			}
		})
	}
}

// TestTreeEqualIgnoresIno: identity is compared through link groups, not
// inode numbers.
func TestTreeEqualIgnoresIno(t *testing.T) {
	a := Tree{"f": file(5, "x"), "g": file(5, "x")}
	b := Tree{"f": file(9, "x"), "g": file(9, "x")}
	a.linkGroups()
	b.linkGroups()
	if !a.Equal(b) {
		t.Error("same structure, other inode numbers: not equal")
	}
	c := Tree{"f": file(5, "x"), "g": file(6, "x")}
	c.linkGroups()
	if a.Equal(c) {
		t.Error("two links and two files compare equal")
	}
}

func inoOf(n int) vlfs.Ino { return vlfs.Ino(n) }
