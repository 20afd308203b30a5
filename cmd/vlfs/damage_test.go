package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/damage"
)

// TestDamageCLI: `vlfs damage` on a small populated image holds in every
// case of the default kinds and damages (JSON rows; damaged data, stale
// data too, reads EIO; the stale rows of the superblock and the piece copies are
// reported skipped),
// and reports the file data of a version-3 image, which has no checksums,
// as failed (exit 4): the command can fail.
func TestDamageCLI(t *testing.T) {
	img, _ := fsckImageFixture(t)
	code, out, errs := runCLI(t, "damage", "--samples", "1", "--json", img)
	var r damageResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Report == nil || code != r.ExitCode {
		t.Fatalf("damage: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if r.ExitCode != exitOK || r.Failures != 0 || len(r.Rows) == 0 || r.Files != 3 {
		t.Errorf("damage: exit %d with %d failures, %d rows, %d files", r.ExitCode, r.Failures, len(r.Rows), r.Files)
	}
	for _, c := range r.Cases {
		if len(c.Failures) > 0 {
			t.Errorf("%s/%s at %d: %v", c.Kind, c.Damage, c.Addr, c.Failures)
		}
	}
	eio := map[string]int{}
	for _, row := range r.Rows {
		if row.Repaired != row.Cases {
			t.Errorf("%s/%s: %d of %d repaired", row.Kind, row.Damage, row.Repaired, row.Cases)
		}
		eio[row.Damage] += row.Unreadable
	}
	if eio["random"] == 0 || eio[damage.DamageStale] == 0 {
		t.Errorf("no damaged or stale data read as EIO: %+v", r.Rows)
	}
	t.Logf("default kinds and damages: exit %d, %d cases, %d failed", code, len(r.Cases), r.Failures)
	if len(r.Skipped) != 2 || r.Skipped[0].Kind != damage.KindSuperblock || r.Skipped[1].Kind != damage.KindPieceCopy {
		t.Errorf("skipped %+v, want the stale rows of the superblock and the piece copies", r.Skipped)
	}
	// The text report says what it did not run, and why.
	code, out, errs = runCLI(t, "damage", "--kinds", "superblock,data", "--damages", "stale", "--samples", "1", img)
	if code != exitOK || !strings.Contains(out, "\ndata  stale   1 ") || !strings.Contains(out, "not run: superblock stale: ") {
		t.Fatalf("damage --damages stale: exit %d\n%s%s", code, out, errs)
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
