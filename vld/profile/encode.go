package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Encode validates p and returns its JSON form. Cell values are rounded to
// 0.1 us, far below any timing resolution, to keep files small.
func Encode(p *Profile) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	q := *p
	q.MedianMs, q.SpreadMs, q.MeanMs = rounded(p.MedianMs), rounded(p.SpreadMs), rounded(p.MeanMs)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(&q); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return b.Bytes(), nil
}

func rounded(m [][]float64) [][]float64 {
	out := make([][]float64, len(m))
	for i, row := range m {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = math.Round(v*1e4) / 1e4
		}
	}
	return out
}

// Save writes p to path atomically (a temporary file renamed over it).
func Save(p *Profile, path string) error {
	data, err := Encode(p)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".profile-*")
	if err != nil {
		return fmt.Errorf("save profile: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save profile %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save profile %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save profile: %w", err)
	}
	return nil
}
