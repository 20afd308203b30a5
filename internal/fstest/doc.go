// Package fstest is the one FUSE test helper of vlfs: Mount formats a
// temporary image, mounts it in a temporary directory (served in-process by
// package fusefs) and, in t.Cleanup, unmounts it with retries, closes the
// file system and checks it (vlfs.FS.Check on a fresh read-only mount),
// failing the test if it is not clean. FUSE traffic is logged only with
// go test -v. Tests are skipped, with a message saying why, only when
// /dev/fuse or fusermount3 is missing.
//
// PosixTests is a conformance table run both against a plain directory of
// the host (the oracle that keeps the table honest) and against a mount.
package fstest
