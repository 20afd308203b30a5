// Command vlfs-loopback is the pass-through FUSE peer of `vlfs bench
// peers`: github.com/hanwen/go-fuse/v2's loopback file system (fs.NewLoopbackRoot)
// with the options of go-fuse's own example/loopback (1 s entry and
// attribute timeouts), mounted in the foreground.
//
//	vlfs-loopback [--passthrough] [--cpuprofile FILE] ORIGINAL MOUNTPOINT
//
// By default every read and write goes through FUSE, as in vlfs: go-fuse
// 2.12 otherwise opens files in the kernel's FUSE passthrough mode
// (FOPEN_PASSTHROUGH, kernel 6.9+, root), where the kernel reads and
// writes the original file itself and the server never sees the data, so
// the loopback would measure the host file system rather than FUSE.
// --passthrough turns that mode back on.
//
// It prints "ready" on stdout once the mount answers, and unmounts and
// exits on SIGINT or SIGTERM, or when the mount is unmounted from outside
// (fusermount3 -u). It lives in its own Go module so that the main vlfs
// module, and `make test`, never compile go-fuse.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

func main() {
	os.Exit(run())
}

func run() int {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the server to this file")
	passthrough := flag.Bool("passthrough", false, "let the kernel read and write the original files itself (FUSE passthrough)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: vlfs-loopback [--passthrough] [--cpuprofile FILE] ORIGINAL MOUNTPOINT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		return 2
	}
	root, err := fs.NewLoopbackRoot(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "vlfs-loopback: %v\n", err)
		return 1
	}
	if !*passthrough {
		root = &fuseDataNode{root.(*fs.LoopbackNode)}
	}
	sec := time.Second
	opts := &fs.Options{
		AttrTimeout:     &sec,
		EntryTimeout:    &sec,
		NullPermissions: true,
		MountOptions: fuse.MountOptions{
			FsName: flag.Arg(0),
			Name:   "loopback",
		},
	}
	server, err := fs.Mount(flag.Arg(1), root, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vlfs-loopback: mount: %v\n", err)
		return 1
	}
	if *cpuprofile != "" {
		stop, err := startProfile(*cpuprofile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "vlfs-loopback: %v\n", err)
			server.Unmount()
			return 1
		}
		defer stop()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		server.Unmount()
	}()
	fmt.Println("ready")
	server.Wait()
	return 0
}

// fuseDataNode is a loopback node whose open files keep their data
// on the FUSE path: its file handles refuse passthrough.
type fuseDataNode struct{ *fs.LoopbackNode }

var (
	_ fs.NodeWrapChilder = (*fuseDataNode)(nil)
	_ fs.NodeOpener      = (*fuseDataNode)(nil)
	_ fs.NodeCreater     = (*fuseDataNode)(nil)
)

// WrapChild makes every node of the tree a fuseDataNode.
func (n *fuseDataNode) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &fuseDataNode{ops.(*fs.LoopbackNode)}
}

func (n *fuseDataNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fl, errno := n.LoopbackNode.Open(ctx, flags)
	return noPassthrough(fh), fl, errno
}

func (n *fuseDataNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	in, fh, fl, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	return in, noPassthrough(fh), fl, errno
}

// fuseDataFile is a loopback file that declines passthrough; every other
// operation is the loopback's own.
type fuseDataFile struct{ *fs.LoopbackFile }

// PassthroughFd answers "no backing file", so go-fuse serves the data.
func (f *fuseDataFile) PassthroughFd() (int, bool) { return -1, false }

func noPassthrough(fh fs.FileHandle) fs.FileHandle {
	if lf, ok := fh.(*fs.LoopbackFile); ok {
		return &fuseDataFile{lf}
	}
	return fh
}

// startProfile starts a CPU profile written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
