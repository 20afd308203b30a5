package fusefs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRaiseReadahead(t *testing.T) {
	tests := []struct {
		name    string
		initial string // "" : no such device
		dev     string
		kb      uint32
		want    int
		wantErr bool
		file    string // the file afterwards
	}{
		{"raised", "128\n", "0:39", 1024, 1024, false, "1024"},
		{"already wider", "2048\n", "0:39", 1024, 2048, false, "2048\n"},
		{"equal", "1024\n", "0:39", 1024, 1024, false, "1024\n"},
		{"no such device", "", "0:40", 1024, 0, true, ""},
		{"garbage", "lots\n", "0:39", 1024, 0, true, "lots\n"},
		{"path in dev", "128\n", "../0:39", 1024, 0, true, "128\n"},
		{"empty dev", "128\n", "", 1024, 0, true, "128\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "0:39", "read_ahead_kb")
			if tc.initial != "" {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tc.initial), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := raiseReadahead(dir, tc.dev, tc.kb)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("got %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
			if tc.initial != "" {
				b, _ := os.ReadFile(p)
				if string(b) != tc.file {
					t.Fatalf("file now %q, want %q", b, tc.file)
				}
			}
		})
	}
}
