package vlfs

import "fmt"

// FindingKind names one kind of damage Check can find. The names are
// stable: `vlfs fsck --json` prints them and scripts may match them.
type FindingKind string

// The kinds of damage. docs/fsck.md says which ones --repair fixes.
const (
	// FindMount: the image does not mount (recovery, the inode map or the
	// metadata walk failed; a block claimed twice is found here).
	FindMount FindingKind = "mount"
	// FindUnreadable: a metadata block (inode block, directory block,
	// indirect block, xattr block) fails its checksum or does not decode.
	FindUnreadable FindingKind = "unreadable"
	// FindInodeState: an inode's in-use bit and its record disagree, or its
	// mode names no file type.
	FindInodeState FindingKind = "inode-state"
	// FindSharedBlock: a block is referenced twice.
	FindSharedBlock FindingKind = "shared-block"
	// FindBlockCount: an inode's block count differs from its block tree.
	FindBlockCount FindingKind = "block-count"
	// FindSize: blocks beyond a file's size, or a directory whose size is
	// not its blocks.
	FindSize FindingKind = "size"
	// FindBadEntry: a directory entry names a free inode or has the wrong
	// type.
	FindBadEntry FindingKind = "bad-entry"
	// FindParent: a directory's ".." is not the directory holding it.
	FindParent FindingKind = "parent"
	// FindLinkCount: an inode's link count differs from the entries naming it.
	FindLinkCount FindingKind = "link-count"
	// FindUnreachable: an inode in use and linked, not reachable from the root.
	FindUnreachable FindingKind = "unreachable"
	// FindUnlinked: an inode with no link that nobody holds open (unlinked
	// while open when the system stopped; a read-write mount reclaims it).
	FindUnlinked FindingKind = "unlinked"
	// FindLeakedBlock: a block held by the inode map that serves nothing
	// (an inode block with no inode in use).
	FindLeakedBlock FindingKind = "leaked-block"
	// FindVolume: the volume's own Check (allocator <-> virtual log <->
	// the blocks vlfs references) failed.
	FindVolume FindingKind = "volume"
	// FindDataChecksum: a file or directory block whose bytes do not match
	// the checksum its pointer carries (version 4): damaged, or a write
	// the device lost. There is no second copy: --repair reports it and
	// leaves it, and the bytes read as EIO until the file is restored or
	// deleted.
	FindDataChecksum FindingKind = "data-checksum"
	// FindRedundancy: a damaged copy of fixed metadata (block 0, a
	// checkpoint slot, a checkpoint directory block or its copy) was read
	// around; nothing is lost, but the next damage could be. A read-write
	// mount writes it again.
	FindRedundancy FindingKind = "redundancy"
	// FindCache: a mounted file system's in-memory state disagrees with
	// itself (an inode's set of dirty indirect blocks holds one that is not
	// the loaded block, or dirty state exists while no change is recorded
	// since the last commit's snapshot). Never on disk: a bug in the
	// running code.
	FindCache FindingKind = "cache"
)

// Finding is one problem Check found. It is an error wrapping ErrCorrupt,
// so Check can return findings joined and callers can errors.As them.
type Finding struct {
	Kind   FindingKind `json:"kind"`
	Ino    Ino         `json:"ino,omitempty"`  // the inode concerned, 0 if none
	Addr   uint64      `json:"addr,omitempty"` // the block concerned, 0 if none
	Detail string      `json:"detail"`
}

func (f Finding) Error() string { return fmt.Sprintf("%s: %s", f.Kind, f.Detail) }

// Unwrap makes every finding an ErrCorrupt.
func (f Finding) Unwrap() error { return ErrCorrupt }
