package fuzz

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/vlfs/vlfs/crashtest"
	"github.com/vlfs/vlfs/internal/fuzzlimit"
)

// fuzzParseWorkload is the target of FuzzParseWorkload (native) and
// FuzzGoParseWorkload (go-fuzz): crashtest's workload reader returns a
// workload or an ErrBadWorkload error, never panics, and what it accepts
// reads back the same from its String, within fuzzlimit's bounds. It
// returns go-fuzz's score: 1 for a workload that parsed.
func fuzzParseWorkload(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) { return parseWorkloadOnce(data) })
}

func parseWorkloadOnce(data []byte) (int, error) {
	w, err := crashtest.ParseWorkloadString(string(data))
	if err != nil {
		if !errors.Is(err, crashtest.ErrBadWorkload) {
			return 0, fmt.Errorf("error %v does not wrap ErrBadWorkload", err)
		}
		return 0, nil
	}
	back, err := crashtest.ParseWorkloadString(w.String())
	if err != nil {
		return 0, fmt.Errorf("its String does not parse: %w\n%s", err, w)
	}
	if back.Name != w.Name || !reflect.DeepEqual(back.Setup, w.Setup) || !reflect.DeepEqual(back.Ops, w.Ops) {
		return 0, fmt.Errorf("read back differently:\n%+v\n%+v", w, back)
	}
	return 1, nil
}
