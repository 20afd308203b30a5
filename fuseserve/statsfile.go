package fuseserve

import (
	"encoding/json"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/internal/fusepoll"
)

// Snapshot is report as a stats file holds it: indented JSON and a
// newline. Each open of the file takes one, which its reads return.
func Snapshot(report any) []byte {
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil { // a report holds only numbers, strings and maps of them
		return []byte("{}\n")
	}
	return append(b, '\n')
}

// ReadSnapshot answers a read of data, a snapshot taken at open: the
// part at the request's offset, nothing past the end.
func ReadSnapshot(r *fuse.ReadRequest, data []byte) {
	if r.Offset < 0 || r.Offset >= int64(len(data)) {
		data = nil
	} else {
		data = data[r.Offset:]
	}
	if len(data) > r.Size {
		data = data[:r.Size]
	}
	r.Respond(&fuse.ReadResponse{Data: data})
}

// DisablePoll makes the kernel stop sending FUSE_POLL to the mount that
// serves statsFile (a file it can open): an in-process FUSE_POLL can
// deadlock the process beyond even SIGKILL (package fusepoll). A failure
// is logged; the mount serves on.
func (c *Core) DisablePoll(statsFile string) {
	if err := fusepoll.Disable(statsFile); err != nil {
		c.Logf("%s: %v", c.Name, err)
	}
}
