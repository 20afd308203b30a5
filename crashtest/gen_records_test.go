package crashtest

import (
	"reflect"
	"testing"
)

// TestRecordWorkloads: record workloads are reproducible from their seed,
// valid, and run to crash states that pass, between commits that were
// log records (else they would test nothing of issue 33's replay).
func TestRecordWorkloads(t *testing.T) {
	a, b := Records(4, 7), Records(4, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed drew different workloads")
	}
	var records int64
	for _, w := range a {
		if _, err := ParseWorkloadString(w.String()); err != nil {
			t.Fatalf("%s does not parse back: %v", w.Name, err)
		}
		res, err := CheckWorkload(w, Config{Modes: []string{"buffered"}, Subsets: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failing > 0 {
			t.Fatalf("%s: %d failing crash states: %v", w.Name, res.Failing, res.Failures[0])
		}
		records += res.RecordCommits
	}
	if records == 0 {
		t.Fatal("no commit of the record workloads was a log record")
	}
	t.Logf("%d commits as log records", records)
}
