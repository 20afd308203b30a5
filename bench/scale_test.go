package bench

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestScaleShape runs bench scale small: the report has the shared shape,
// one row per target, and figures that were measured.
func TestScaleShape(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	big, err := disk.Preset("st4000nm0023")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Scale(ScaleConfig{Model: m, Dir: t.TempDir(), MountFiles: 2000, MountImageMiB: 64, MemFiles: 5000, MemImageMiB: 64, Mounts: 2,
		LargeModel: big, LargeGiB: 1024, LargeFiles: 300})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := CheckShape(b.Bytes(), "scale"); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 4 || rep.Rows[0]["target"] != "mount" || rep.Rows[1]["target"] != "memory" ||
		rep.Rows[2]["target"] != "large" || rep.Rows[3]["files"] != 300 {
		t.Fatalf("rows: %v", rep.Rows)
	}
	if r := rep.Rows[2]; r["mkfs_ms"].(float64) <= 0 || r["check_ms"].(float64) <= 0 || r["image_mib"] != 1<<20 {
		t.Errorf("large row %v: mkfs or check not measured, or not 1 TiB", r)
	}
	for _, r := range rep.Rows {
		if r["mount_ms"].(float64) <= 0 || (r["files"] != 0 && r["populate_ms"].(float64) <= 0) {
			t.Errorf("row %v: times not measured", r)
		}
	}
	if rss := rep.Rows[1]["rss_mib"].(float64); rss <= 0 {
		t.Errorf("rss %v MiB: not measured", rss)
	}
	t.Log(b.String())
}

func TestScaleConfigRefusesNegative(t *testing.T) {
	m, _ := disk.Preset("st19101")
	if _, err := Scale(ScaleConfig{Model: m, MountFiles: -1}); err == nil {
		t.Fatal("negative file count accepted")
	}
	if _, err := Scale(ScaleConfig{}); err == nil {
		t.Fatal("no model accepted")
	}
	if _, err := Scale(ScaleConfig{Model: m, LargeGiB: 1}); err == nil {
		t.Fatal("large image without a model accepted")
	}
	if _, err := Scale(ScaleConfig{Model: m, LargeModel: m, LargeFiles: -1}); err == nil {
		t.Fatal("negative large file count accepted")
	}
}
