package device

import "strings"

// OpKind names a device operation. The kinds are distinct bits so that a
// Fault can match several kinds at once (OpRead|OpWrite, OpAll).
type OpKind uint8

const (
	// OpWrite is a WriteAt.
	OpWrite OpKind = 1 << iota
	// OpFlush is a Flush.
	OpFlush
	// OpRead is a ReadAt. Crash never records reads.
	OpRead

	// OpAll matches reads, writes and flushes.
	OpAll = OpRead | OpWrite | OpFlush
)

// String names the kind, or the kinds of a mask joined by "|".
func (k OpKind) String() string {
	names := []struct {
		bit  OpKind
		name string
	}{{OpRead, "read"}, {OpWrite, "write"}, {OpFlush, "flush"}}
	var parts []string
	for _, n := range names {
		if k&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}
