package vlfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// The scrub (version 4): Check reads every data block the trees name and
// compares its bytes with the checksum in its pointer, so that fsck finds
// damaged file data before a reader does, and names the file by path.

// scrubBatch is how many blocks the scrub reads per volume request run.
const scrubBatch = 256

// scrubbed is a data block that failed its checksum.
type scrubbed struct {
	ino       Ino
	lbn, addr uint64
	sum, got  uint32 // the pointer's checksum, and the bytes'
}

// scrubber reads one inode's data blocks in batches.
type scrubber struct {
	c     *checker
	ino   Ino
	lbns  []uint64
	addrs []vld.Addr
	sums  []uint32
	bufs  [][]byte
}

// newScrubber returns nil when the geometry carries no checksums or the
// check does not scrub.
func (c *checker) newScrubber(ino Ino) *scrubber {
	if !c.fs.geo.summed || !c.scrub {
		return nil
	}
	return &scrubber{c: c, ino: ino}
}

// add queues block lbn at a (checksum sum); a full batch is read.
func (s *scrubber) add(lbn uint64, a vld.Addr, sum uint32) {
	if s == nil {
		return
	}
	s.lbns, s.addrs, s.sums = append(s.lbns, lbn), append(s.addrs, a), append(s.sums, sum)
	if len(s.addrs) == scrubBatch {
		s.flush()
	}
}

// flush reads and verifies what is queued.
func (s *scrubber) flush() {
	if s == nil || len(s.addrs) == 0 {
		return
	}
	fs, c := s.c.fs, s.c
	for len(s.bufs) < len(s.addrs) {
		s.bufs = append(s.bufs, make([]byte, fs.geo.bs))
	}
	bufs := s.bufs[:len(s.addrs)]
	if err := fs.vol.ReadBlocks(s.addrs, bufs); err != nil {
		c.fail(FindUnreadable, s.ino, 0, "inode %d: reading its data: %v", s.ino, err)
	} else {
		for i, b := range bufs {
			if got := ondisk.DataSum(b); got != s.sums[i] {
				c.damaged = append(c.damaged, scrubbed{ino: s.ino, lbn: s.lbns[i], addr: s.addrs[i], sum: s.sums[i], got: got})
			}
		}
	}
	s.lbns, s.addrs, s.sums = s.lbns[:0], s.addrs[:0], s.sums[:0]
}

// reportDamaged turns the blocks the scrub found damaged into findings,
// one per block, naming each file by path (from the entries the check
// read) and the bytes lost.
func (c *checker) reportDamaged() {
	if len(c.damaged) == 0 {
		return
	}
	named := map[Ino]childRef{} // inode -> a name of it, and the directory holding it
	parentOf := map[Ino]Ino{}
	for dir, kids := range c.children {
		for _, k := range kids {
			if _, ok := named[k.ino]; !ok {
				named[k.ino], parentOf[k.ino] = k, dir
			}
		}
	}
	path := func(ino Ino) string {
		var parts []string
		for hops := 0; ino != RootIno && hops < 4096; hops++ {
			k, ok := named[ino]
			if !ok {
				return fmt.Sprintf("inode %d (no path)", ino)
			}
			parts = append(parts, k.name)
			ino = parentOf[ino]
		}
		slices.Reverse(parts)
		return "/" + strings.Join(parts, "/")
	}
	bs := uint64(c.fs.geo.bs)
	for _, d := range c.damaged {
		c.fail(FindDataChecksum, d.ino, d.addr, "%s: bytes %d..%d (block %d at %d) fail their checksum (%#08x, pointer says %#08x): no second copy to repair from; they read as EIO: restore the file or delete it",
			path(d.ino), d.lbn*bs, (d.lbn+1)*bs-1, d.lbn, d.addr, d.got, d.sum)
	}
}
