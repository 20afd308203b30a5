package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// exitReport is what a mount daemon leaves for `vlfs umount`, which is not
// its parent and cannot read its exit status: whether it closed the image
// cleanly, and if not, why. umount prints the reason and exits non-zero,
// so that state the next mount will not see is never reported as
// unmounted cleanly (issue 30).
type exitReport struct {
	PID   int    `json:"pid"`
	Dir   string `json:"dir"`
	Image string `json:"image"`
	Clean bool   `json:"clean"`
	Error string `json:"error,omitempty"`
}

// exitReportDir is where daemons leave their reports: /run/vlfs for root,
// a per-user directory under the temporary directory otherwise.
func exitReportDir() string {
	if os.Geteuid() == 0 {
		if st, err := os.Stat("/run"); err == nil && st.IsDir() {
			return "/run/vlfs"
		}
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("vlfs-%d", os.Geteuid()))
}

func exitReportPath(pid int) string {
	return filepath.Join(exitReportDir(), fmt.Sprintf("%d.exit.json", pid))
}

// writeExitReport records how the daemon closed its image; failures are
// logged to w, and umount then says it found no report.
func writeExitReport(r exitReport, logf func(string, ...any)) {
	b, _ := json.Marshal(r)
	p := exitReportPath(r.PID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		logf("vlfs: exit report: %v", err)
		return
	}
	pruneExitReports(filepath.Dir(p))
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		logf("vlfs: exit report: %v", err)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		logf("vlfs: exit report: %v", err)
	}
}

// exitReportKeep is how long a report nobody took is kept: a foreground
// mount ended with Ctrl-C leaves one that no umount reads.
const exitReportKeep = 24 * time.Hour

// pruneExitReports removes reports older than exitReportKeep.
func pruneExitReports(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".exit.json") && time.Since(info.ModTime()) > exitReportKeep {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// takeExitReport reads and removes the report daemon pid left; ok is
// false if it left none (it was killed, or could not write it).
func takeExitReport(pid int) (exitReport, bool) {
	p := exitReportPath(pid)
	b, err := os.ReadFile(p)
	if err != nil {
		return exitReport{}, false
	}
	os.Remove(p)
	var r exitReport
	if json.Unmarshal(b, &r) != nil || r.PID != pid {
		return exitReport{}, false
	}
	return r, true
}
