package vlfstest

import (
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// noClose keeps a device open across a file system's Close, so that an
// image can be mounted again (vlfs.Mount closes what it is given).
type noClose struct{ device.Device }

func (noClose) Close() error { return nil }

// hasKind reports whether fds holds a finding of kind k.
func hasKind(fds []vlfs.Finding, k vlfs.FindingKind) bool {
	for _, f := range fds {
		if f.Kind == k {
			return true
		}
	}
	return false
}
