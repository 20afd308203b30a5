package disk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxModelFileBytes bounds what Load reads: a model with a seek table for
// every distance of the largest allowed disk is still far below it.
const MaxModelFileBytes = 16 << 20

// Parse decodes a JSON model strictly (unknown fields and trailing data are
// rejected) and validates it. Errors wrap ErrInvalidModel.
func Parse(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidModel, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after the model object", ErrInvalidModel)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Load reads and parses a JSON model file.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("disk model: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxModelFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("disk model %s: %w", path, err)
	}
	if len(data) > MaxModelFileBytes {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrInvalidModel, path, MaxModelFileBytes)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Resolve returns the preset called nameOrPath, or else the model in the
// file at that path. The error of a miss says both what presets exist and
// why the file could not be used.
func Resolve(nameOrPath string) (*Model, error) {
	if m, err := Preset(nameOrPath); err == nil {
		return m, nil
	}
	m, err := Load(nameOrPath)
	if err == nil {
		return m, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("disk %q is neither a preset (%s) nor an existing model file: %w",
			nameOrPath, strings.Join(PresetNames(), ", "), ErrUnknownPreset)
	}
	return nil, err
}

// JSON encodes the model in the format Parse reads.
func (m *Model) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "Ruemmler & Wilkes" stays readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("disk model %s: %w", m.Name, err)
	}
	return buf.Bytes(), nil
}
