package crashtest

import (
	"testing"
)

// TestSeq1Count: the seq-1 set is large enough (ACE's has 328) and every
// workload round-trips through the text format.
func TestSeq1Count(t *testing.T) {
	ws := Seq1()
	if len(ws) < 300 {
		t.Fatalf("seq1 has %d workloads, want at least 300", len(ws))
	}
	names := map[string]bool{}
	for _, w := range ws {
		if names[w.Name] {
			t.Fatalf("duplicate name %s", w.Name)
		}
		names[w.Name] = true
		back, err := ParseWorkloadString(w.String())
		if err != nil {
			t.Fatalf("%s: %v\n%s", w.Name, err, w)
		}
		if back.String() != w.String() {
			t.Fatalf("%s does not round-trip:\n%s\n---\n%s", w.Name, w, back)
		}
	}
}

// TestSeqSampleReproducible: the same seed gives the same sample.
func TestSeqSampleReproducible(t *testing.T) {
	a, b := Seq2Sample(50, 7), Seq2Sample(50, 7)
	if len(a) != 50 {
		t.Fatalf("got %d workloads", len(a))
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			t.Fatalf("workload %d differs between two draws", i)
		}
	}
	if c := Seq2Sample(50, 8); c[0].String() == a[0].String() && c[1].String() == a[1].String() {
		t.Error("different seeds gave the same sample")
	}
	if _, err := SeqSample(4, 1, 1); err == nil {
		t.Error("seq4 accepted")
	}
}
