package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDamageCLI: `vlfs damage` on a small populated image holds in every
// case of the default kinds (exit 0, JSON rows; damaged data reads EIO),
// and reports the file data of a version-3 image, which has no checksums,
// as failed (exit 4): the command can fail.
func TestDamageCLI(t *testing.T) {
	img, _ := fsckImageFixture(t)
	code, out, errs := runCLI(t, "damage", "--samples", "1", "--json", img)
	var r damageResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK || r.ExitCode != exitOK || r.Report == nil {
		t.Fatalf("damage: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if len(r.Rows) == 0 || r.Failures != 0 || r.Files != 3 {
		t.Fatalf("damage: %d rows, %d failures, %d files", len(r.Rows), r.Failures, r.Files)
	}
	eio := 0
	for _, row := range r.Rows {
		if row.Repaired != row.Cases {
			t.Errorf("%s/%s: %d of %d repaired", row.Kind, row.Damage, row.Repaired, row.Cases)
		}
		eio += row.Unreadable
	}
	if eio == 0 {
		t.Errorf("no damaged data read as EIO: %+v", r.Rows)
	}
	v3, _ := fsckImageFixtureArgs(t, "--fs-version", "3")
	if code, out, errs := runCLI(t, "damage", "--kinds", "data", "--damages", "random", "--samples", "2", v3); code != exitUncorrect {
		t.Fatalf("damage of a version-3 image's data blocks: exit %d, want %d\n%s%s", code, exitUncorrect, out, errs)
	}
	if code, _, _ := runCLI(t, "damage", "--damages", "melt", img); code != exitUsage {
		t.Fatalf("an unknown damage: exit %d, want %d", code, exitUsage)
	}
	// An image that does not check clean cannot be a baseline.
	mustRun(t, "inspect", "--damage", "--leak-block", img)
	if code, _, errs := runCLI(t, "damage", img); code != exitFailure || !strings.Contains(errs, "check clean") {
		t.Fatalf("damage of an image that is not clean: exit %d, want %d\n%s", code, exitFailure, errs)
	}
}
