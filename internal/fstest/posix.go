package fstest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"golang.org/x/sys/unix"
)

// PosixTests is the conformance table: each test gets an empty directory
// and checks Linux behaviour exactly. It runs against a host temporary
// directory (see posix_test.go: the oracle, which proves the expectations
// right) and against a vlfs mount (vlfs/fusefs tests).
var PosixTests = map[string]func(t *testing.T, dir string){
	"CreateReadWrite":       testCreateReadWrite,
	"ExclusiveCreate":       testExclusiveCreate,
	"Append":                testAppend,
	"OverwriteMiddle":       testOverwriteMiddle,
	"LargeWriteRead":        testLargeWriteRead,
	"TruncateDown":          testTruncateDown,
	"TruncateUp":            testTruncateUp,
	"OpenTruncate":          testOpenTruncate,
	"SparseFile":            testSparseFile,
	"SparseBeyond4GiB":      testSparseBeyond4GiB,
	"MkdirRmdir":            testMkdirRmdir,
	"RmdirErrors":           testRmdirErrors,
	"ReadDir":               testReadDir,
	"DirLinkCount":          testDirLinkCount,
	"ManyEntries":           testManyEntries,
	"RenameFile":            testRenameFile,
	"RenameOverwrite":       testRenameOverwrite,
	"RenameCrossDir":        testRenameCrossDir,
	"RenameDirOntoEmpty":    testRenameDirOntoEmpty,
	"RenameDirOntoFull":     testRenameDirOntoFull,
	"RenameTypeMismatch":    testRenameTypeMismatch,
	"RenameDirLinkCounts":   testRenameDirLinkCounts,
	"RenameSameInode":       testRenameSameInode,
	"RenameIntoOwnSubdir":   testRenameIntoOwnSubdir,
	"RenameNoReplace":       testRenameNoReplace,
	"RenameExchange":        testRenameExchange,
	"HardLink":              testHardLink,
	"Symlink":               testSymlink,
	"Mkfifo":                testMkfifo,
	"MknodCharDevice":       testMknodCharDevice,
	"Chmod":                 testChmod,
	"Chown":                 testChown,
	"SetgidDirectory":       testSetgidDirectory,
	"Utimens":               testUtimens,
	"MtimeOnWrite":          testMtimeOnWrite,
	"Xattr":                 testXattr,
	"XattrSizes":            testXattrSizes,
	"OpenUnlinked":          testOpenUnlinked,
	"NameTooLong":           testNameTooLong,
	"FsyncFileAndDir":       testFsyncFileAndDir,
	"OSync":                 testOSync,
	"Fallocate":             testFallocate,
	"Statfs":                testStatfs,
	"BlocksTrackUsage":      testBlocksTrackUsage,
	"BlocksAfterRewrite":    testBlocksAfterRewrite,
	"BlocksAfterAppends":    testBlocksAfterAppends,
	"StickyBit":             testStickyBit,
	"UnlinkWhileListing":    testUnlinkWhileListing,
	"FtruncateOpenUnlinked": testFtruncateOpenUnlinked,
	"MmapShared":            testMmapShared,
	"MmapPrivate":           testMmapPrivate,
	"AppendTwoDescriptors":  testAppendTwoDescriptors,
	"TruncateWhileOpen":     testTruncateWhileOpen,
	"PartialBlocks":         testPartialBlocks,
	"SeekDataHole":          testSeekDataHole,
	"SeekDataMmap":          testSeekDataMmap,
	"CopyFileRange":         testCopyFileRange,
	"CtimeOnChange":         testCtimeOnChange,
	"DirTimesOnEntryChange": testDirTimesOnEntryChange,
	"UtimensCtime":          testUtimensCtime,
	"Flock":                 testFlock,
	"FcntlLocks":            testFcntlLocks,
	"ReaddirWhileChanging":  testReaddirWhileChanging,
	"RenameOntoEmptyAcross": testRenameOntoEmptyAcross,
	"XattrSymlink":          testXattrSymlink,
	"TruncatePartialBlock":  testTruncatePartialBlock,
	"FallocatePunchHole":    testFallocatePunchHole,
	"ODirect":               testODirect,
	"UnixSocket":            testUnixSocket,
	"XattrNamespaces":       testXattrNamespaces,
	"XattrCapability":       testXattrCapability,
	"Tmpfile":               testTmpfile,
}

// RunPosix runs every PosixTests case as a subtest, each in the directory
// newDir returns for it.
func RunPosix(t *testing.T, newDir func(t *testing.T) string) {
	names := make([]string, 0, len(PosixTests))
	for n := range PosixTests {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) { PosixTests[n](t, newDir(t)) })
	}
}

// --- helpers -------------------------------------------------------------

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantContent(t *testing.T, path string, want []byte) {
	t.Helper()
	if got := readFile(t, path); !bytes.Equal(got, want) {
		t.Fatalf("%s: content %d bytes %q..., want %d bytes %q...", filepath.Base(path),
			len(got), head(got), len(want), head(want))
	}
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }

func fd(f *os.File) int { return int(f.Fd()) }

func lstat(t *testing.T, path string) unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func wantErrno(t *testing.T, what string, err error, want unix.Errno) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v (%s)", what, err, want, unix.ErrnoName(want))
	}
}

func mustDo(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// dropCache writes a file's dirty pages out and drops its clean ones from
// the kernel's page cache, so that the next read comes from the file
// system itself (on a mount: from vlfs, not from the kernel's copy).
// Pages still mapped stay.
func dropCache(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	mustDo(t, "open to drop the cache", err)
	defer f.Close()
	mustDo(t, "fdatasync", unix.Fdatasync(int(f.Fd())))
	mustDo(t, "fadvise DONTNEED", unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
}
