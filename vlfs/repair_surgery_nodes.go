package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Surgery on the node part of the inode map (file-system version
// FSVersionNodeMap); see repair_surgery.go.

// SurgeryLeakNode writes an empty indirect block of inode owner and places
// it in the node map under a fresh node number that no tree names. It
// returns the block's address.
func (fs *FS) SurgeryLeakNode(owner Ino) (uint64, error) {
	fs.lock()
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return 0, err
	}
	if !fs.imap.nodeMap {
		return 0, fmt.Errorf("surgery: leak node: file-system version %d has no node map: %w", fs.sb.Version, ErrInvalid)
	}
	b := make([]byte, fs.geo.bs)
	n := fs.geo.newNode()
	ondisk.EncodeIndirect(b, uint64(owner), 1, n.ptrs, n.sums)
	addrs, err := fs.vol.WriteBlocks([][]byte{b}, vld.WriteOpts{Meta: true})
	if err != nil {
		return 0, fmt.Errorf("surgery: leak node: %w", err)
	}
	fs.imap.setNode(fs.imap.allocNode(), addrs[0], fs.geo.sum(b))
	fs.markDirtySinceLocked()
	return addrs[0], nil
}

// errFound stops a block walk.
var errFound = errors.New("found")

// SurgeryUnplaceNode removes the map entry of the first numbered indirect
// block of ino's tree, which keeps naming it: a tree naming a node the map
// does not place. The block itself is left as it is.
func (fs *FS) SurgeryUnplaceNode(ino Ino) error {
	return fs.surgery(ino, func(in *inode) error {
		var num uint64
		err := fs.forEachBlockLocked(in, func(node bool, lbn, _ uint64, _ uint32) error {
			if node && lbn != 0 {
				num = lbn
				return errFound
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFound) {
			return err
		}
		if num == 0 {
			return fmt.Errorf("surgery: unplace node: inode %d has no numbered indirect block: %w", ino, ErrInvalid)
		}
		fs.imap.setNode(num, 0, 0)
		return nil
	})
}
