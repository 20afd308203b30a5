package device

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// script is the op sequence every Faulty case runs: read, write, flush, write,
// read, flush, write. Write i writes byte '1'+i at offset i.
var script = []OpKind{OpRead, OpWrite, OpFlush, OpWrite, OpRead, OpFlush, OpWrite}

// runScript runs script on d and returns the indices of the ops that failed.
func runScript(t *testing.T, d Device) []int {
	t.Helper()
	var failed []int
	for i, k := range script {
		var err error
		switch k {
		case OpRead:
			_, err = d.ReadAt(make([]byte, 4), 0)
		case OpWrite:
			_, err = d.WriteAt([]byte{'1' + byte(i)}, int64(i))
		case OpFlush:
			err = d.Flush()
		}
		if err != nil {
			if !errors.Is(err, ErrInjected) {
				t.Fatalf("op %d: %v is not ErrInjected", i, err)
			}
			failed = append(failed, i)
		}
	}
	return failed
}

// wantFailed is the reference: which script ops a fault fails.
func wantFailed(f Fault) []int {
	mask := f.Op
	if mask == 0 {
		mask = OpAll
	}
	var out []int
	seen := 0
	for i, k := range script {
		if k&mask == 0 {
			continue
		}
		seen++
		if seen == f.After+1 || (f.Sticky && seen > f.After+1) {
			out = append(out, i)
		}
	}
	return out
}

func TestFaultyFailsExactlyTheChosenOp(t *testing.T) {
	masks := []OpKind{0, OpAll, OpRead, OpWrite, OpFlush, OpRead | OpWrite, OpWrite | OpFlush}
	for _, mask := range masks {
		for after := range len(script) + 1 {
			for _, sticky := range []bool{false, true} {
				f := Fault{Op: mask, After: after, Sticky: sticky}
				t.Run(fmt.Sprintf("%v/after=%d/sticky=%v", mask, after, sticky), func(t *testing.T) {
					m := NewMem(16)
					d := NewFaulty(m, f)
					failed := runScript(t, d)
					want := wantFailed(f)
					if !slices.Equal(failed, want) {
						t.Fatalf("failed ops %v, want %v", failed, want)
					}
					if d.Injected() != len(want) {
						t.Errorf("Injected = %d, want %d", d.Injected(), len(want))
					}
					if n := countMatching(mask); d.Count() != n {
						t.Errorf("Count = %d, want %d", d.Count(), n)
					}
					checkFailedWritesDidNothing(t, m, failed)
				})
			}
		}
	}
}

func countMatching(mask OpKind) int {
	if mask == 0 {
		mask = OpAll
	}
	n := 0
	for _, k := range script {
		if k&mask != 0 {
			n++
		}
	}
	return n
}

// checkFailedWritesDidNothing: a write that failed left its byte zero, one
// that passed wrote it.
func checkFailedWritesDidNothing(t *testing.T, m *Mem, failed []int) {
	t.Helper()
	img := m.Bytes()
	for i, k := range script {
		if k != OpWrite {
			continue
		}
		want := '1' + byte(i)
		if slices.Contains(failed, i) {
			want = 0
		}
		if img[i] != want {
			t.Errorf("byte %d = %q, want %q", i, img[i], want)
		}
	}
}

// TestFaultyEveryOp is the errorfs loop: fail operation i for every i until
// a run sees no fault, checking that each run fails where it should.
func TestFaultyEveryOp(t *testing.T) {
	runs := 0
	for i := 0; ; i++ {
		d := NewFaulty(NewMem(16), Fault{Op: OpAll, After: i})
		failed := runScript(t, d)
		if d.Injected() == 0 {
			break
		}
		runs++
		if !slices.Equal(failed, []int{i}) {
			t.Fatalf("run %d failed ops %v", i, failed)
		}
	}
	if runs != len(script) {
		t.Fatalf("%d faulty runs, want %d", runs, len(script))
	}
}

func TestFaultyPassesThrough(t *testing.T) {
	m := NewMem(8)
	d := NewFaulty(m, Fault{Op: OpFlush, After: 5})
	mustWrite(t, d, []byte("abc"), 2)
	if d.Size() != 8 || !bytes.Equal(m.Bytes()[2:5], []byte("abc")) {
		t.Fatal("write did not reach the wrapped device")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if d.Count() != 0 {
		t.Fatalf("Count = %d; writes and Close do not match an OpFlush fault", d.Count())
	}
}

func TestOpKindString(t *testing.T) {
	cases := map[OpKind]string{OpRead: "read", OpWrite: "write", OpFlush: "flush", OpAll: "read|write|flush", 0: "none"}
	for k, want := range cases {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}
