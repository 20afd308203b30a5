// Package damage is issue 34's damage matrix for images of any size: it
// damages copies of an image one block at a time (every kind of block,
// the single-copy log entries on request; one bit flipped,
// zeroed, random bytes, and a stale older version of the block, stale.go),
// runs vlfs.Repair on each copy and checks what a
// user is promised: the damage is found, the repair leaves an image that
// checks clean and mounts, every file the damaged block did not hold
// reads back byte-identical (wherever the repair linked it), and a file it
// held is gone or a prefix of its bytes, never wrong bytes.
//
// A copy is an overlay over the untouched image (overlay.go): only the
// blocks the damage and the repair write are held in memory, so a big
// image costs one read-only open. `vlfs damage` runs it
// (cmd/vlfs/damage.go); vlfs/repair_salvage_test.go runs the same checks
// on a small image in make test.
//
// Nothing here keeps state between runs; Run is safe to call from several
// goroutines on different images.
package damage
