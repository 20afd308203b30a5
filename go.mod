module github.com/vlfs/vlfs

go 1.26.8

require (
	bazil.org/fuse v0.0.0-20230120002735-62a210ff1fd5
	golang.org/x/sys v0.4.0
)

// Patched copy: sticky bit and FUSE_RENAME2 (third_party/bazil.org/fuse/VLFS-PATCHES.md).
replace bazil.org/fuse => ./third_party/bazil.org/fuse
