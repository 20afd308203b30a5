package fuzz

import (
	"fmt"
	"strings"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/internal/mountinfo"
)

// This file holds mountinfo's fuzz target, shared by the native target
// FuzzParseLine (fuzz_test.go) and, through fuzzParseLineBytes, the
// go-fuzz adapter FuzzGoParseLine (gofuzz.go, built only with the gofuzz
// tag) (docs/fuzzing.md).

// fuzzParseLine: ParseLine, ConnID and Parse never panic, and a line
// ParseLine accepts has a file-system type, a source and the "-"
// separator; no input may allocate more than fuzzlimit.AllocLimit or run
// longer than fuzzlimit.Hang. It returns go-fuzz's score (1: the line
// parsed) and an error when a property fails.
func fuzzParseLine(line string) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		e, ok := mountinfo.ParseLine(line)
		if ok && (e.FSType == "" || e.Source == "" || !strings.Contains(line, "-")) {
			return 0, fmt.Errorf("accepted %q as %+v", line, e)
		}
		e.ConnID()
		mountinfo.Parse(strings.NewReader(line))
		if ok {
			return 1, nil
		}
		return 0, nil
	})
}

// fuzzParseLineBytes is fuzzParseLine on go-fuzz's bytes: all of them are
// the line.
func fuzzParseLineBytes(data []byte) (int, error) {
	return fuzzParseLine(string(data))
}
