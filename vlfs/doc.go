// Package vlfs is the file-system core of vlfs: inodes, directories, file
// data, the inode map and recovery, stored on a vld.Volume. It knows nothing
// about FUSE; package vlfs/fusefs adapts it.
package vlfs
