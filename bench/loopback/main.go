// Command vlfs-loopback is the pass-through FUSE peer of `vlfs bench
// peers`: github.com/hanwen/go-fuse/v2's loopback file system (fs.NewLoopbackRoot)
// with the options of go-fuse's own example/loopback (1 s entry and
// attribute timeouts), mounted in the foreground.
//
//	vlfs-loopback [--cpuprofile FILE] ORIGINAL MOUNTPOINT
//
// It prints "ready" on stdout once the mount answers, and unmounts and
// exits on SIGINT or SIGTERM, or when the mount is unmounted from outside
// (fusermount3 -u). It lives in its own Go module so that the main vlfs
// module, and `make test`, never compile go-fuse.
package main

import (
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
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: vlfs-loopback [--cpuprofile FILE] ORIGINAL MOUNTPOINT")
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
