// Package profile owns the measured head-position profile of a device: a
// Bark-style table (section 6 of the range-writes paper) of the cost of a
// write against the skip distance from the previous write and the think
// time since it completed.
//
// It holds:
//   - the profile format (profile.go): JSON with the grid, the median,
//     spread and mean per cell, and metadata; a strict decoder
//     (decode.go) that rejects unknown fields, trailing data, bad
//     dimensions and non-finite values, and never panics;
//   - the measurement (measure.go): write a block, wait the think time,
//     write the next block skip further on, time that second write;
//   - the targets it measures (target*.go): the simulator as a black box
//     (only timed writes through the disk model's Service on a virtual
//     clock), and a regular file or block device written with O_DSYNC and,
//     where allowed, O_DIRECT, every write checked against the region;
//   - the data-safety checks for block devices (safety.go, signature.go).
//
// The package keeps no package-level mutable state and takes no locks: a
// Profile is a value, a Target belongs to one measurement at a time.
// Its consumer is vld's profiled head model (vld/head_profile.go).
package profile
