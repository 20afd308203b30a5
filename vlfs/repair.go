package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// LostFound is the directory of the root where Repair links the inodes it
// finds in use but unreachable.
const LostFound = "lost+found"

// RepairResult is what Repair found, did and left.
type RepairResult struct {
	Found []Finding `json:"found"` // before any change
	Fixed []string  `json:"fixed"` // one line per change made
	Left  []Finding `json:"left"`  // on a fresh mount after the repair
}

// Repair checks the file system on dev and fixes what is safe to fix:
// entries naming free inodes are removed and wrong entry types corrected;
// inodes with no link that nobody can open any more are reclaimed (what a
// mount does); inodes in use but unreachable go to /lost+found (created if
// missing); link counts, block counts, parents and file sizes (grown to
// cover their blocks) are corrected; inode blocks holding no inode in use
// are freed. It never frees a block that something reachable references.
//
// Metadata that does not read or decode is salvaged (repair_salvage.go):
// an inode block is dropped with its inodes and the entries naming them,
// a file is truncated at an unreadable indirect block, a directory block
// is emptied and an xattr block dropped, a lost root is made again, and
// what became unreachable goes to lost+found (a directory back into the
// damaged directory its ".." names).
//
// If it finds damage it cannot fix (a block referenced twice, a volume
// that does not open) it changes nothing, and Fixed lists nothing but
// what the read-write open itself wrote again (lost copies of fixed
// metadata). Changes reach the disk through one ordinary commit, so a
// crash during the repair leaves the image as it was before or as
// repaired.
// Afterwards it mounts the image again read-only and checks it: Left
// holds what remains. dev stays open.
func Repair(dev device.Device, o Options) (*RepairResult, error) {
	res := &RepairResult{Found: []Finding{}, Fixed: []string{}, Left: []Finding{}}
	o.ReadOnly = false
	fs, err := mountForRepair(noClose{dev}, o)
	if err != nil {
		if !isDamage(err) {
			return nil, err
		}
		res.Found = append(res.Found, Finding{Kind: FindMount, Detail: err.Error()})
		res.Left = res.Found
		return res, nil
	}
	commit, err := fs.repair(res)
	if err != nil || !commit {
		// Nothing committed: the image stays as it was (what the salvage
		// changed in memory goes with the volume).
		if derr := fs.discard(); err == nil && derr != nil {
			err = fmt.Errorf("repair: %w", derr)
		}
		if err != nil {
			return res, err
		}
	} else if err := fs.Close(); err != nil {
		return res, fmt.Errorf("repair: commit: %w", err)
	}
	o.ReadOnly, o.salvage = true, false
	left, err := CheckDevice(noClose{dev}, o)
	if err != nil {
		return res, err
	}
	res.Left = left
	return res, nil
}

// CheckDevice mounts dev (read-only if o says so) and returns Check's
// findings, or one FindMount finding when the image does not mount.
// The error is for failures that are not damage (I/O, bad options). dev
// is closed (pass a wrapper to keep it).
func CheckDevice(dev device.Device, o Options) ([]Finding, error) {
	fs, err := Mount(dev, o)
	if err != nil {
		if isDamage(err) {
			return []Finding{{Kind: FindMount, Detail: err.Error()}}, nil
		}
		return nil, err
	}
	defer fs.Close()
	return fs.Findings()
}

// isDamage tells damage on the image from failures to read it at all and
// from images that are not vlfs (ErrNotVLFS: nothing to repair).
func isDamage(err error) bool {
	if errors.Is(err, ErrNotVLFS) {
		return false
	}
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNeedsRepair) || errors.Is(err, vld.ErrCorrupt)
}

// VolumeError classifies vld.Open's error for a vlfs image: a damaged
// volume needs repair (ErrNeedsRepair), an image with no volume is not
// vlfs (ErrNotVLFS). Callers that open the volume themselves (Open) use it
// to say so as Mount does.
func VolumeError(err error) error {
	switch {
	case errors.Is(err, vld.ErrNotFormatted):
		return fmt.Errorf("%w: %w", err, ErrNotVLFS)
	case errors.Is(err, vld.ErrCorrupt):
		return fmt.Errorf("%w: %w", err, ErrNeedsRepair)
	}
	return err
}

// mountForRepair is Mount without reclaiming inodes with no link: a link
// count damaged to 0 must not free a file that directories still name.
// No background flusher runs: the repair commits once, at Close.
func mountForRepair(dev device.Device, o Options) (*FS, error) {
	vol, err := vld.Open(dev, vld.Options{Logf: o.Logf, AcceptLoss: true})
	if err != nil {
		return nil, fmt.Errorf("mount: %w", VolumeError(err))
	}
	fs, err := mountVolumeForRepair(vol, o)
	if err != nil {
		vol.Abandon() // the image stays as it was
		return nil, fmt.Errorf("mount: %w", err)
	}
	return fs, nil
}

func mountVolumeForRepair(vol *vld.Volume, o Options) (*FS, error) {
	if vol.Kind() != volumeKind {
		return nil, fmt.Errorf("volume holds %q: %w", vol.Kind(), ErrNotVLFS)
	}
	o.ReadOnly = true // mountVolume must not reclaim or start the flusher
	o.salvage = true  // the walk records what it cannot read (repair_salvage.go)
	fs, err := mountVolume(vol, o)
	if err != nil {
		return nil, err
	}
	fs.lock()
	fs.readOnly, fs.opts.ReadOnly = false, false
	fs.unlock()
	return fs, nil
}
