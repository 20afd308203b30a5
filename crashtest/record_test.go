package crashtest

import (
	"fmt"
	"testing"
)

// TestRecordingDeterministic: recording a workload twice issues the same
// writes (offsets and lengths) and flushes, so the write indices of a
// replay command name the same writes.
func TestRecordingDeterministic(t *testing.T) {
	ws := Seq2Sample(6, 11)
	for _, w := range ws {
		for _, mode := range AllModes() {
			a, b := shape(t, w, mode), shape(t, w, mode)
			if a != b {
				t.Errorf("%s (%s): two recordings differ:\n%s\n%s", w.Name, mode, a, b)
			}
		}
	}
}

func shape(t *testing.T, w Workload, mode string) string {
	rec, err := Record(w, recordOptions{size: DefaultImageSize, mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, op := range rec.Dev.Ops() {
		s += fmt.Sprintf("%v:%d+%d ", op.Kind, op.Off, len(op.Data))
	}
	return s
}
