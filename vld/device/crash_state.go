package device

import (
	"fmt"
	"strconv"
	"strings"
)

// State is one crash state of a Crash record: what a disk could hold if power
// failed at some point.
type State struct {
	// Flushes: every op up to and including the Flushes-th flush landed
	// (0 = only the starting image).
	Flushes int
	// Extra are indices (into Ops) of writes from the unflushed epoch after
	// that flush (before the next one) that also landed, applied in this order.
	Extra []int
	// Torn, if set, is one more write of the epoch that landed partially.
	Torn *Torn
}

// Torn is a write that landed partially: its first Bytes bytes reached the
// disk and the rest of its range kept the content it had before.
type Torn struct {
	Write int // index into Ops of a write in the unflushed epoch
	Bytes int // length of the prefix that landed
}

// String is a compact description that ParseState reads back, for example
// "flushes=3 extra=[7,9] torn=11:1536". Empty parts are left out.
func (s State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "flushes=%d", s.Flushes)
	if len(s.Extra) > 0 {
		b.WriteString(" extra=[")
		for i, x := range s.Extra {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(x))
		}
		b.WriteByte(']')
	}
	if s.Torn != nil {
		fmt.Fprintf(&b, " torn=%d:%d", s.Torn.Write, s.Torn.Bytes)
	}
	return b.String()
}

// ParseState reads what State.String writes. Parts are separated by spaces;
// flushes is required, extra and torn are optional, each part at most once.
// "extra=[]" is accepted and gives a nil Extra. Numbers are non-negative
// decimals. Errors wrap ErrBadState.
func ParseState(text string) (State, error) {
	var s State
	seen := map[string]bool{}
	for _, part := range strings.Fields(text) {
		key, val, ok := strings.Cut(part, "=")
		if !ok || seen[key] {
			return State{}, fmt.Errorf("state %q: bad or repeated part %q: %w", text, part, ErrBadState)
		}
		seen[key] = true
		if err := s.parsePart(key, val); err != nil {
			return State{}, fmt.Errorf("state %q: %s: %w", text, part, err)
		}
	}
	if !seen["flushes"] {
		return State{}, fmt.Errorf("state %q: no flushes=: %w", text, ErrBadState)
	}
	return s, nil
}

func (s *State) parsePart(key, val string) error {
	var err error
	switch key {
	case "flushes":
		s.Flushes, err = parseCount(val)
	case "extra":
		s.Extra, err = parseList(val)
	case "torn":
		s.Torn, err = parseTorn(val)
	default:
		err = fmt.Errorf("unknown part: %w", ErrBadState)
	}
	return err
}

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a non-negative number: %w", v, ErrBadState)
	}
	return n, nil
}

// parseList reads "[a,b,c]". The result never has more entries than the
// text has characters.
func parseList(v string) ([]int, error) {
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, fmt.Errorf("%q is not a [list]: %w", v, ErrBadState)
	}
	inner := v[1 : len(v)-1]
	if inner == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(inner, ",") {
		n, err := parseCount(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func parseTorn(v string) (*Torn, error) {
	w, b, ok := strings.Cut(v, ":")
	if !ok {
		return nil, fmt.Errorf("%q is not write:bytes: %w", v, ErrBadState)
	}
	var t Torn
	var err error
	if t.Write, err = parseCount(w); err != nil {
		return nil, err
	}
	if t.Bytes, err = parseCount(b); err != nil {
		return nil, err
	}
	return &t, nil
}
