package disk

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
)

// fuzzParse is the fuzz target of the model JSON reader, shared by the
// native target FuzzParse (json_test.go) and the go-fuzz adapter
// FuzzGoParse (gofuzz.go). Parse must never panic; what it accepts must
// survive a round trip, give finite seek times and build a layout or a
// clean error whose layout serves a request; no input may allocate more
// than fuzzlimit.AllocLimit or run longer than fuzzHangLimit. It returns
// go-fuzz's score (1: a model parsed) and an error when a property fails.
func fuzzParse(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzHangLimit, func() (int, error) { return fuzzParseModel(data) })
}

// fuzzHangLimit is how long one input may run before a timer panics (a
// hang: the native engine has no time limit).
const fuzzHangLimit = 10 * time.Second

func fuzzParseModel(data []byte) (int, error) {
	m, err := Parse(data)
	if err != nil {
		if !errors.Is(err, ErrInvalidModel) {
			return 0, fmt.Errorf("error does not wrap ErrInvalidModel: %w", err)
		}
		return 0, nil
	}
	b, err := m.JSON()
	if err != nil {
		return 0, fmt.Errorf("accepted model does not encode: %w", err)
	}
	back, err := Parse(b)
	if err != nil {
		return 0, fmt.Errorf("round trip: the encoding of an accepted model does not parse: %w", err)
	}
	// Compared through clone, which canonicalises an empty seek table to
	// nil as the encoding does (omitempty): "table_ms":[] and no table
	// mean the same model (SeekMs looks only at the length).
	if !reflect.DeepEqual(back.clone(), m.clone()) {
		return 0, fmt.Errorf("round trip: the model differs after encoding and parsing again")
	}
	if b2, err := back.JSON(); err != nil || !bytes.Equal(b2, b) {
		return 0, fmt.Errorf("round trip: a second encoding differs (%v)", err)
	}
	for _, d := range []int{1, m.Cylinders - 1} {
		if s := m.SeekMs(d); math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
			return 0, fmt.Errorf("SeekMs(%d) = %v", d, s)
		}
	}
	l, err := NewLayout(m, SectorSize, 1<<16)
	if err != nil {
		if !errors.Is(err, ErrBadLayout) {
			return 0, fmt.Errorf("layout error does not wrap ErrBadLayout: %w", err)
		}
		return 1, nil
	}
	a, _ := l.Service(Head{}, 0, l.NumBlocks()-1, 2, true)
	if tot := a.TotalMs(); math.IsNaN(tot) || tot < 0 {
		return 0, fmt.Errorf("Service total %v", tot)
	}
	return 1, nil
}
