package fusefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ReadLiveReport reads the report a mount at dir serves in its stats
// file (DefaultStatsFile), with an error naming the file.
func ReadLiveReport(dir string) (Report, error) {
	var r Report
	p := filepath.Join(dir, DefaultStatsFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("%s is not a mounted vlfs file system (no %s in it): %w", dir, DefaultStatsFile, err)
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", p, err)
	}
	return r, nil
}
