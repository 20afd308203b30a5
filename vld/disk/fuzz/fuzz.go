package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/disk"
)

// fuzzParse is the fuzz target of the model JSON reader (disk.Parse),
// shared by the native target FuzzParse (fuzz_test.go) and the go-fuzz
// adapter FuzzGoParse (gofuzz.go). Parse must never panic; what it accepts must
// survive a round trip, give finite seek times and build a layout or a
// clean error whose layout serves a request; no input may allocate more
// than fuzzlimit.AllocLimit or run longer than fuzzlimit.Hang. It returns
// go-fuzz's score (1: a model parsed) and an error when a property fails.
func fuzzParse(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) { return fuzzParseModel(data) })
}

func fuzzParseModel(data []byte) (int, error) {
	m, err := disk.Parse(data)
	if err != nil {
		if !errors.Is(err, disk.ErrInvalidModel) {
			return 0, fmt.Errorf("error does not wrap disk.ErrInvalidModel: %w", err)
		}
		return 0, nil
	}
	b, err := m.JSON()
	if err != nil {
		return 0, fmt.Errorf("accepted model does not encode: %w", err)
	}
	back, err := disk.Parse(b)
	if err != nil {
		return 0, fmt.Errorf("round trip: the encoding of an accepted model does not parse: %w", err)
	}
	// Compared through canonical, which makes an empty seek table nil as
	// the encoding does (omitempty): "table_ms":[] and no table mean the
	// same model (SeekMs looks only at the length).
	if !reflect.DeepEqual(canonical(back), canonical(m)) {
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
	l, err := disk.NewLayout(m, disk.SectorSize, 1<<16)
	if err != nil {
		if !errors.Is(err, disk.ErrBadLayout) {
			return 0, fmt.Errorf("layout error does not wrap disk.ErrBadLayout: %w", err)
		}
		return 1, nil
	}
	a, _ := l.Service(disk.Head{}, 0, l.NumBlocks()-1, 2, true)
	if tot := a.TotalMs(); math.IsNaN(tot) || tot < 0 {
		return 0, fmt.Errorf("Service total %v", tot)
	}
	return 1, nil
}

// fuzzServicePosition is the fuzz target of Service and PositionMs, shared
// by the native target FuzzServicePosition (fuzz_test.go) and, through
// fuzzServicePositionBytes, the go-fuzz adapter FuzzGoServicePosition
// (gofuzz.go). The arguments pick a preset's 4096-byte layout (which), a
// head (cyl, surf, folded onto the layout), a start time (now; NaN,
// infinite or beyond 1e9 ms is skipped), a block (b, folded onto the
// layout) and a length (n, folded onto the room left on b's track), and
// the request must pass serviceConsistency. It returns go-fuzz's score (1:
// a request was checked) and an error when a property fails.
func fuzzServicePosition(which uint8, cyl, surf int, now float64, b int64, n uint16, write bool) (int, error) {
	layouts, err := fuzzServiceLayouts()
	if err != nil {
		return 0, err
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		l := layouts[int(which)%len(layouts)]
		if math.IsNaN(now) || math.IsInf(now, 0) || math.Abs(now) > 1e9 {
			return 0, nil
		}
		b = ((b % l.NumBlocks()) + l.NumBlocks()) % l.NumBlocks()
		tr := l.TrackOf(b)
		room := l.TrackStart(tr) + int64(l.TrackBlocks(tr)) - b
		k := 1 + int(int64(n)%room)
		h := disk.Head{Cyl: ((cyl % 5000) + 5000) % l.NumCylinders(), Surf: ((surf % 64) + 64) % l.Model().Surfaces}
		if err := serviceConsistency(l, h, now, b, k, write); err != nil {
			return 0, err
		}
		return 1, nil
	})
}

// fuzzServiceLayouts are the layouts fuzzServicePosition picks from: every
// preset (PresetNames order) with 4096-byte blocks, built once, outside
// any input's allocation count.
var fuzzServiceLayouts = sync.OnceValues(func() ([]*disk.Layout, error) {
	names := disk.PresetNames()
	layouts := make([]*disk.Layout, len(names))
	for i, name := range names {
		m, err := disk.Preset(name)
		if err != nil {
			return nil, err
		}
		if layouts[i], err = disk.NewLayout(m, 4096, 0); err != nil {
			return nil, fmt.Errorf("preset %s: %w", name, err)
		}
	}
	return layouts, nil
})

// servicePositionInputLen is the length of the fixed fields
// fuzzServicePositionBytes decodes.
const servicePositionInputLen = 1 + 8 + 8 + 8 + 8 + 2 + 1

// fuzzServicePositionBytes maps go-fuzz's bytes onto fuzzServicePosition's
// arguments, little-endian: which (byte 0), cyl (int64, bytes 1-8), surf
// (int64, 9-16), now (float64 bits, 17-24), b (int64, 25-32), n (uint16,
// 33-34), write (bit 0 of byte 35). Later bytes are ignored; a shorter
// input scores 0.
func fuzzServicePositionBytes(data []byte) (int, error) {
	if len(data) < servicePositionInputLen {
		return 0, nil
	}
	le := binary.LittleEndian
	return fuzzServicePosition(data[0],
		int(int64(le.Uint64(data[1:]))),
		int(int64(le.Uint64(data[9:]))),
		math.Float64frombits(le.Uint64(data[17:])),
		int64(le.Uint64(data[25:])),
		le.Uint16(data[33:]),
		data[35]&1 != 0)
}

// serviceConsistency is the property shared by the random test
// (TestServicePositionConsistency, through checkConsistency, fuzz_test.go)
// and the fuzz target: Service's locate time for a one-track request equals PositionMs
// after the overhead, exactly; the wait is under one revolution; MoveMs is
// a lower bound; the transfer is n blocks; and the head ends on b's
// track. It returns the first failure.
func serviceConsistency(l *disk.Layout, h disk.Head, now float64, b int64, n int, write bool) error {
	a, end := l.Service(h, now, b, n, write)
	tr := l.TrackOf(b)
	pos := l.PositionMs(h, now+a.OverheadMs, b, write)
	if a.LocateMs() != pos {
		return fmt.Errorf("h=%v now=%v b=%d write=%v: Service locate %v != PositionMs %v", h, now, b, write, a.LocateMs(), pos)
	}
	if a.RotationMs < 0 || a.RotationMs >= l.RotationMs() {
		return fmt.Errorf("rotation %v outside [0, %v)", a.RotationMs, l.RotationMs())
	}
	if mv := l.MoveMs(h, tr, write); pos < mv || !near(pos-a.RotationMs, mv) {
		return fmt.Errorf("MoveMs %v vs PositionMs %v (rotation %v)", mv, pos, a.RotationMs)
	}
	if !near(a.TransferMs, float64(n)*l.BlockMs(tr)) {
		return fmt.Errorf("transfer %v for %d blocks of %v", a.TransferMs, n, l.BlockMs(tr))
	}
	if c, s := l.CylSurf(tr); end != (disk.Head{Cyl: c, Surf: s}) {
		return fmt.Errorf("head ends at %v, want track %d", end, tr)
	}
	return nil
}

// near is equality of times in ms up to 1e-9 (rounding).
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// canonical is a copy of m with empty zone and seek tables made nil, as
// the JSON encoding leaves them out.
func canonical(m *disk.Model) disk.Model {
	c := *m
	c.Zones = append([]disk.Zone(nil), m.Zones...)
	c.Seek.Table = append([]float64(nil), m.Seek.Table...)
	return c
}
