package profile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFileTargetCreatesMeasuresAndRemoves(t *testing.T) {
	for _, keep := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "target")
		f, err := OpenFile(path, FileOptions{Size: 4 << 20, Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		g := Grid{SkipStepBytes: 4096, Skips: 3, ThinkStepMs: 0.1, Thinks: 2}
		p, err := Measure(context.Background(), f, Config{Grid: g, Repetitions: 2, Target: path})
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		if p.Meta.Kind != KindFile || p.Meta.Clock != ClockWall || !p.Meta.Dsync {
			t.Errorf("meta %+v", p.Meta)
		}
		for _, row := range p.MedianMs {
			for _, v := range row {
				if v <= 0 || v > 1000 {
					t.Errorf("implausible wall time %v ms", v)
				}
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); keep == errors.Is(err, os.ErrNotExist) {
			t.Errorf("keep=%v: stat after close: %v", keep, err)
		}
	}
}

func TestFileTargetSafety(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "data")
	if err := os.WriteFile(existing, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(existing, FileOptions{}); !errors.Is(err, ErrUnsafe) {
		t.Errorf("existing file without --destroy-data: %v", err)
	}
	if _, err := OpenFile(filepath.Join(dir, "new"), FileOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("new file without a size: %v", err)
	}
	if _, err := OpenFile(dir, FileOptions{DestroyData: true}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a directory: %v", err)
	}
	if _, err := OpenFile(existing, FileOptions{DestroyData: true, Offset: 1 << 20, Region: 4096}); !errors.Is(err, ErrInvalid) {
		t.Errorf("region past the end: %v", err)
	}
	f, err := OpenFile(existing, FileOptions{DestroyData: true, Offset: 256 << 10, Region: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for _, off := range []int64{-4096, 256<<10 - 2048, 256 << 10} {
		if _, err := f.Write(off, buf); !errors.Is(err, ErrOutside) {
			t.Errorf("write at %d of a 256 KiB region: %v", off, err)
		}
	}
	if _, err := f.Write(0, buf); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(existing, FileOptions{DestroyData: true}); !errors.Is(err, ErrUnsafe) {
		t.Errorf("second open while the first holds the lock: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("a file the tool did not create was removed: %v", err)
	}
}
