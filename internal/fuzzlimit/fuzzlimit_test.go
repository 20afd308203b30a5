package fuzzlimit

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRunFailsAnInputOverTheAllocLimit(t *testing.T) {
	n, err := Run(time.Minute, func() (int, error) {
		b := make([]byte, 300<<20)
		b[len(b)-1] = 1
		runtime.KeepAlive(b)
		return int(b[len(b)-1]), nil
	})
	if err == nil || !strings.Contains(err.Error(), "one input allocated") {
		t.Fatalf("300 MiB input: err %v, want the allocation limit error", err)
	}
	if n != 1 {
		t.Errorf("score %d, want fn's 1", n)
	}
}

func TestRunPassesASmallInputThrough(t *testing.T) {
	want := errors.New("property failed")
	n, err := Run(time.Minute, func() (int, error) {
		b := make([]byte, 1<<10)
		runtime.KeepAlive(b)
		return 7, want
	})
	if n != 7 || err != want {
		t.Fatalf("Run = %d, %v; want 7, %v", n, err, want)
	}
	if n, err := Run(time.Minute, func() (int, error) { return 1, nil }); n != 1 || err != nil {
		t.Fatalf("Run = %d, %v; want 1, nil", n, err)
	}
}
