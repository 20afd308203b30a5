package vlfstest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"time"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// This file holds the reference model of the file system and the
// operations fuzz target built on it, fuzzOpsModel, shared by the native
// target FuzzOpsModel (fuzz_test.go), its go-fuzz adapter FuzzGoOpsModel
// (gofuzz.go), TestRandomOpsAgainstModel (model_test.go) and
// TestModelMetamorphic (model_metamorphic_test.go).

// fuzzOpsModel runs the model with the fuzzer's bytes as its source of
// choices (each byte picks an operation or an argument, then zeros) on a
// fresh 8 MiB image, one operation per 3 bytes of input (at most 400
// bytes are used). The file system must agree with the model after every
// operation, at remounts and at the end, and check clean. It returns
// go-fuzz's score (1: the input ran operations) and an error when a
// property fails.
func fuzzOpsModel(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzHangLimit, func() (int, error) { return fuzzOpsModelOnce(data) })
}

func fuzzOpsModelOnce(data []byte) (int, error) {
	if len(data) > 400 {
		data = data[:400]
	}
	m, err := disk.Preset("st19101")
	if err != nil {
		return 0, err
	}
	dev := device.NewMem(8 << 20)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m}); err != nil {
		return 0, err
	}
	im := &modelImage{dev: dev, o: vlfs.Options{FlushInterval: time.Hour}}
	if err := im.mount(); err != nil {
		return 0, err
	}
	r := newModelRun(rand.New(&byteSource{b: data}), im)
	if err := r.run(len(data) / 3); err != nil {
		im.fs.Close()
		return 0, err
	}
	if err := im.close(); err != nil {
		return 0, err
	}
	return min(1, len(data)/3), nil
}

// byteSource is a rand.Source that hands out the fuzzer's bytes, one per
// draw (spread over the word, so that both Intn's masking and its modulo
// see it), then zeros.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) Int63() int64 {
	if s.i >= len(s.b) {
		return 0
	}
	v := uint64(s.b[s.i])
	s.i++
	return int64(v * 0x0101010101010101 >> 1)
}

func (s *byteSource) Seed(int64) {}

// modelImage is a memory image with a mounted file system on it, the
// device kept open across remounts.
type modelImage struct {
	dev device.Device
	fs  *vlfs.FS
	o   vlfs.Options
	// kernelTimes leaves file times to the caller, as a FUSE mount with
	// the writeback cache does (FS.SetKernelTimes).
	kernelTimes bool
}

func (im *modelImage) mount() error {
	fs, err := vlfs.Mount(noClose{im.dev}, im.o)
	if err != nil {
		return fmt.Errorf("mount: %w", err)
	}
	fs.SetKernelTimes(im.kernelTimes)
	im.fs = fs
	return nil
}

// close checks and closes the file system.
func (im *modelImage) close() error {
	if im.fs == nil {
		return nil
	}
	err := im.fs.Check()
	if err != nil {
		err = fmt.Errorf("final check: %w", err)
	}
	if cerr := im.fs.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	im.fs = nil
	return err
}

// mNode is the reference model of one inode.
type mNode struct {
	dir   bool
	link  string // symlink target ("" for others)
	data  []byte
	kids  map[string]*mNode
	nlink int
	up    *mNode // directories: parent
	xattr map[string]string
}

// mPath is a directory and a name in it.
type mPath struct {
	dir  []string // names from the root
	name string
}

// modelNames are the names the operations pick from (one byte each):
// few, so that operations collide.
const modelNames = "abcdef"

// modelRun drives a file system and the model with the same random
// operations and compares them.
type modelRun struct {
	rng  *rand.Rand
	im   *modelImage
	root *mNode
	log  []string
	// rootIno is the directory the run works in (RootIno unless set);
	// shared says other runs work in the same file system at once
	// (model_concurrent_test.go): no remounts, and no Check mid-run.
	rootIno vlfs.Ino
	shared  bool
}

func newModelRun(rng *rand.Rand, im *modelImage) *modelRun {
	r := &modelRun{rng: rng, im: im, root: &mNode{dir: true, kids: map[string]*mNode{}, nlink: 2}}
	r.root.up = r.root
	return r
}

// modelFailure carries a failed property from deep in an operation up to
// run, which turns it back into an error (the panic never leaves run).
type modelFailure struct{ err error }

func (r *modelRun) fatalf(format string, args ...any) {
	panic(modelFailure{fmt.Errorf(format, args...)})
}

func (r *modelRun) check() {
	if r.shared {
		return // other runs are mid-operation; the test checks at the end
	}
	if err := r.im.fs.Check(); err != nil {
		r.fatalf("check: %w", err)
	}
}

// remount checks, closes and mounts the image again.
func (r *modelRun) remount() {
	r.check()
	if err := r.im.fs.Close(); err != nil {
		r.fatalf("close: %w", err)
	}
	r.im.fs = nil
	if err := r.im.mount(); err != nil {
		r.fatalf("%w", err)
	}
	r.check()
}

// modelVal carries a call's value and error; in fails the run on the error.
type modelVal[T any] struct {
	v   T
	err error
}

func mval[T any](v T, err error) modelVal[T] { return modelVal[T]{v, err} }

func (m modelVal[T]) in(r *modelRun) T {
	if m.err != nil {
		r.fatalf("%w", m.err)
	}
	return m.v
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// run takes steps random operations, then remounts and compares the
// whole tree. A disagreement with the model, or an error where the model
// wants success, ends the run with an error carrying the last operations.
func (r *modelRun) run(steps int) error {
	return r.guard(func() {
		for range steps {
			r.step()
			if r.rng.Intn(100) == 0 {
				r.check()
			}
		}
		r.log = append(r.log, "final remount")
		r.remount()
		r.compareTree()
	})
}

// guard runs fn and returns the failure it reports with fatalf, carrying
// the last operations.
func (r *modelRun) guard(fn func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(modelFailure)
			if !ok {
				panic(p) // a real panic: both engines report it as a crasher
			}
			err = fmt.Errorf("%w\nlast operations:\n%s", f.err, lastLines(r.log, 20))
		}
	}()
	fn()
	return nil
}

func lastLines(l []string, n int) string {
	var b bytes.Buffer
	for _, s := range l[max(0, len(l)-n):] {
		fmt.Fprintln(&b, s)
	}
	return b.String()
}

func (r *modelRun) step() {
	type op struct {
		w  int
		fn func()
	}
	ops := []op{
		{10, r.opCreate}, {5, r.opMkdir}, {20, r.opWrite}, {5, r.opTruncate}, {6, r.opUnlink},
		{4, r.opRmdir}, {8, r.opRename}, {4, r.opLink}, {2, r.opSymlink}, {6, r.opRead},
		{2, r.opSync}, {1, r.opRemount}, {1, r.opCrash}, {3, r.opFallocate}, {4, r.opXattr}, {2, r.opOpenUnlinked},
		{3, r.opCopyRange}, {2, r.opTmpfile},
	}
	total := 0
	for _, o := range ops {
		total += o.w
	}
	n := r.rng.Intn(total)
	for _, o := range ops {
		if n < o.w {
			o.fn()
			return
		}
		n -= o.w
	}
}

// dirs returns the paths of all model directories.
func (r *modelRun) dirs() [][]string {
	var out [][]string
	var walk func(n *mNode, p []string)
	walk = func(n *mNode, p []string) {
		out = append(out, p)
		for _, name := range sortedKeys(n.kids) {
			if c := n.kids[name]; c.dir {
				walk(c, append(slices.Clone(p), name))
			}
		}
	}
	walk(r.root, nil)
	return out
}

func sortedKeys(m map[string]*mNode) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (r *modelRun) randPath() mPath {
	ds := r.dirs()
	return mPath{dir: ds[r.rng.Intn(len(ds))], name: string(modelNames[r.rng.Intn(len(modelNames))])}
}

func (r *modelRun) mdir(p []string) *mNode {
	n := r.root
	for _, s := range p {
		n = n.kids[s]
	}
	return n
}

// ino resolves a model directory path in the file system.
func (r *modelRun) ino(p []string) vlfs.Ino {
	ino := r.top()
	for _, s := range p {
		a, err := r.im.fs.Lookup(ino, s)
		if err != nil {
			r.fatalf("resolving %v: %v", p, err)
		}
		r.im.fs.Forget(a.Ino, 1)
		ino = a.Ino
	}
	return ino
}

func (r *modelRun) expect(what string, err, want error) {
	r.log = append(r.log, fmt.Sprintf("%s -> %v", what, err))
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		r.fatalf("%s: got %v, want %v", what, err, want)
	}
}

func (r *modelRun) opCreate() {
	p := r.randPath()
	d := r.mdir(p.dir)
	a, err := r.im.fs.Create(r.ino(p.dir), p.name, 0o644, 0, 0)
	var want error
	if d.kids[p.name] != nil {
		want = vlfs.ErrExist
	}
	r.expect(fmt.Sprintf("create %v/%s", p.dir, p.name), err, want)
	if err == nil {
		r.im.fs.Forget(a.Ino, 1)
		d.kids[p.name] = &mNode{nlink: 1}
	}
}

func (r *modelRun) opMkdir() {
	p := r.randPath()
	d := r.mdir(p.dir)
	a, err := r.im.fs.Mkdir(r.ino(p.dir), p.name, 0o755, 0, 0)
	var want error
	if d.kids[p.name] != nil {
		want = vlfs.ErrExist
	}
	r.expect(fmt.Sprintf("mkdir %v/%s", p.dir, p.name), err, want)
	if err == nil {
		r.im.fs.Forget(a.Ino, 1)
		d.kids[p.name] = &mNode{dir: true, kids: map[string]*mNode{}, nlink: 2, up: d}
		d.nlink++
	}
}

func (r *modelRun) opSymlink() {
	p := r.randPath()
	d := r.mdir(p.dir)
	target := fmt.Sprintf("target-%d", r.rng.Intn(1000))
	a, err := r.im.fs.Symlink(r.ino(p.dir), p.name, target, 0, 0)
	var want error
	if d.kids[p.name] != nil {
		want = vlfs.ErrExist
	}
	r.expect(fmt.Sprintf("symlink %v/%s", p.dir, p.name), err, want)
	if err == nil {
		r.im.fs.Forget(a.Ino, 1)
		d.kids[p.name] = &mNode{link: target, nlink: 1}
	}
}

// file picks an existing regular file, or returns ok false.
func (r *modelRun) file() (mPath, *mNode, bool) {
	for range 10 {
		p := r.randPath()
		if n := r.mdir(p.dir).kids[p.name]; n != nil && !n.dir && n.link == "" {
			return p, n, true
		}
	}
	return mPath{}, nil, false
}

func (r *modelRun) fileIno(p mPath) vlfs.Ino {
	a, err := r.im.fs.Lookup(r.ino(p.dir), p.name)
	if err != nil {
		r.fatalf("lookup %v/%s: %v", p.dir, p.name, err)
	}
	r.im.fs.Forget(a.Ino, 1)
	return a.Ino
}

func (r *modelRun) opWrite() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	sizes := []int{1, 100, 4096, 5000, 20000, 70000}
	off := r.rng.Intn(3 * 4096 * 20)
	if r.rng.Intn(10) == 0 {
		off = r.rng.Intn(3 << 20)
	}
	data := make([]byte, sizes[r.rng.Intn(len(sizes))])
	r.rng.Read(data)
	_, err := r.im.fs.Write(r.fileIno(p), int64(off), data)
	r.expect(fmt.Sprintf("write %v/%s [%d,+%d)", p.dir, p.name, off, len(data)), err, nil)
	if end := off + len(data); end > len(n.data) {
		n.data = append(n.data, make([]byte, end-len(n.data))...)
	}
	copy(n.data[off:], data)
}

func (r *modelRun) opCopyRange() {
	p1, n1, ok1 := r.file()
	p2, n2, ok2 := r.file()
	if !ok1 || !ok2 {
		return
	}
	sizes := []int{1, 100, 4096, 5000, 20000, 70000}
	srcOff, dstOff := r.rng.Intn(len(n1.data)+100), r.rng.Intn(len(n2.data)+10000)
	if r.rng.Intn(2) == 0 { // the same place in the block: holes are kept
		dstOff += (srcOff - dstOff) % 4096
		dstOff = max(dstOff, 0)
		if dstOff%4096 != srcOff%4096 {
			dstOff += 4096
		}
	}
	n := sizes[r.rng.Intn(len(sizes))]
	what := fmt.Sprintf("copy %v/%s [%d,+%d) to %v/%s %d", p1.dir, p1.name, srcOff, n, p2.dir, p2.name, dstOff)
	got, err := r.im.fs.CopyRange(r.fileIno(p1), int64(srcOff), r.fileIno(p2), int64(dstOff), int64(n))
	want := max(0, min(n, len(n1.data)-srcOff)) // cut at the end of the source
	if n1 == n2 && srcOff < dstOff+want && dstOff < srcOff+want {
		r.expect(what, err, vlfs.ErrInvalid)
		return
	}
	r.expect(what, err, nil)
	if int(got) != want {
		r.fatalf("%s: copied %d, model %d", what, got, want)
	}
	if want == 0 {
		return
	}
	data := append([]byte(nil), n1.data[srcOff:srcOff+want]...)
	if end := dstOff + want; end > len(n2.data) {
		n2.data = append(n2.data, make([]byte, end-len(n2.data))...)
	}
	copy(n2.data[dstOff:], data)
}

func (r *modelRun) opTruncate() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	size := r.rng.Intn(len(n.data) + 10000)
	_, err := r.im.fs.SetAttr(r.fileIno(p), vlfs.SetAttr{Mask: vlfs.SetSize, Size: uint64(size)})
	r.expect(fmt.Sprintf("truncate %v/%s %d", p.dir, p.name, size), err, nil)
	if size < len(n.data) {
		n.data = n.data[:size]
	} else {
		n.data = append(n.data, make([]byte, size-len(n.data))...)
	}
}

func (r *modelRun) opRead() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	buf := make([]byte, len(n.data)+100)
	got, err := r.im.fs.Read(r.fileIno(p), 0, buf)
	r.expect(fmt.Sprintf("read %v/%s", p.dir, p.name), err, nil)
	if !bytes.Equal(buf[:got], n.data) {
		r.fatalf("read %v/%s: %d bytes, model %d, first difference at %d", p.dir, p.name, got, len(n.data), firstDiff(buf[:got], n.data))
	}
}

func (r *modelRun) opUnlink() {
	p := r.randPath()
	d := r.mdir(p.dir)
	err := r.im.fs.Unlink(r.ino(p.dir), p.name)
	var want error
	switch n := d.kids[p.name]; {
	case n == nil:
		want = vlfs.ErrNotExist
	case n.dir:
		want = vlfs.ErrIsDir
	}
	r.expect(fmt.Sprintf("unlink %v/%s", p.dir, p.name), err, want)
	if err == nil {
		d.kids[p.name].nlink--
		delete(d.kids, p.name)
	}
}

func (r *modelRun) opRmdir() {
	p := r.randPath()
	d := r.mdir(p.dir)
	err := r.im.fs.Rmdir(r.ino(p.dir), p.name)
	var want error
	switch n := d.kids[p.name]; {
	case n == nil:
		want = vlfs.ErrNotExist
	case !n.dir:
		want = vlfs.ErrNotDir
	case len(n.kids) > 0:
		want = vlfs.ErrNotEmpty
	}
	r.expect(fmt.Sprintf("rmdir %v/%s", p.dir, p.name), err, want)
	if err == nil {
		delete(d.kids, p.name)
		d.nlink--
	}
}

func (r *modelRun) opLink() {
	src, n, ok := r.file()
	if !ok {
		return
	}
	p := r.randPath()
	d := r.mdir(p.dir)
	a, err := r.im.fs.Link(r.fileIno(src), r.ino(p.dir), p.name)
	var want error
	if d.kids[p.name] != nil {
		want = vlfs.ErrExist
	}
	r.expect(fmt.Sprintf("link %v/%s -> %v/%s", src.dir, src.name, p.dir, p.name), err, want)
	if err == nil {
		r.im.fs.Forget(a.Ino, 1)
		d.kids[p.name] = n
		n.nlink++
	}
}

func (r *modelRun) opRename() {
	from, to := r.randPath(), r.randPath()
	od, nd := r.mdir(from.dir), r.mdir(to.dir)
	flags := uint32(0)
	switch r.rng.Intn(8) {
	case 0:
		flags = vlfs.RenameNoReplace
	case 1:
		flags = vlfs.RenameExchange
	}
	err := r.im.fs.Rename(r.ino(from.dir), from.name, r.ino(to.dir), to.name, flags)
	want := r.modelRename(od, from.name, nd, to.name, flags)
	r.expect(fmt.Sprintf("rename %v/%s -> %v/%s flags %d", from.dir, from.name, to.dir, to.name, flags), err, want)
}

// inside reports whether directory d is n or below n.
func inside(d, n *mNode) bool {
	for {
		if d == n {
			return true
		}
		if d.up == d {
			return false
		}
		d = d.up
	}
}

// modelRename applies a rename to the model and returns the error the
// file system must give.
func (r *modelRun) modelRename(od *mNode, on string, nd *mNode, nn string, flags uint32) error {
	src, dst := od.kids[on], nd.kids[nn]
	switch {
	case src == nil:
		return vlfs.ErrNotExist
	case flags == vlfs.RenameExchange && dst == nil:
		return vlfs.ErrNotExist
	case flags == vlfs.RenameNoReplace && dst != nil:
		return vlfs.ErrExist
	case dst == src:
		return nil
	case src.dir && inside(nd, src):
		return vlfs.ErrInvalid
	}
	if flags == vlfs.RenameExchange {
		if dst.dir && inside(od, dst) {
			return vlfs.ErrInvalid
		}
		od.kids[on], nd.kids[nn] = dst, src
		r.reparent(src, od, nd)
		r.reparent(dst, nd, od)
		return nil
	}
	if dst != nil {
		switch {
		case src.dir && !dst.dir:
			return vlfs.ErrNotDir
		case src.dir && len(dst.kids) > 0:
			return vlfs.ErrNotEmpty
		case !src.dir && dst.dir:
			return vlfs.ErrIsDir
		}
		if dst.dir {
			nd.nlink--
		} else {
			dst.nlink--
		}
	}
	delete(od.kids, on)
	nd.kids[nn] = src
	r.reparent(src, od, nd)
	return nil
}

func (r *modelRun) reparent(n, from, to *mNode) {
	if n.dir && from != to {
		n.up = to
		from.nlink--
		to.nlink++
	}
}

func (r *modelRun) opSync() {
	r.expect("sync", r.im.fs.Sync(), nil)
}

func (r *modelRun) opRemount() {
	if r.shared {
		r.opSync() // the file system is not this run's alone to remount
		return
	}
	r.log = append(r.log, "remount")
	r.remount()
	r.compareTree()
}

// opCrash syncs, then mounts the image as a crash right then would leave
// it (the bytes written so far, no clean unmount: version 3's records are
// replayed, not written out by a closing commit) and goes on there.
func (r *modelRun) opCrash() {
	if r.shared {
		r.opSync()
		return
	}
	r.log = append(r.log, "crash after sync")
	r.expect("sync", r.im.fs.Sync(), nil)
	r.check()
	b := make([]byte, r.im.dev.Size())
	if _, err := r.im.dev.ReadAt(b, 0); err != nil {
		r.fatalf("copying the image: %w", err)
	}
	if err := r.im.fs.Close(); err != nil { // the old image's; the copy is the crash
		r.fatalf("close: %w", err)
	}
	r.im.fs, r.im.dev = nil, device.MemFrom(b)
	if err := r.im.mount(); err != nil {
		r.fatalf("mount after a crash: %w", err)
	}
	r.check()
	r.compareTree()
}

// compareTree walks the model and the file system and compares names,
// types, link counts, sizes and contents.
func (r *modelRun) compareTree() {
	r.compareDir(r.root, r.top(), "/")
}

// top is the directory the run's model root stands for.
func (r *modelRun) top() vlfs.Ino {
	if r.rootIno != 0 {
		return r.rootIno
	}
	return vlfs.RootIno
}

func (r *modelRun) compareDir(m *mNode, ino vlfs.Ino, path string) {
	fs := r.im.fs
	ents, err := fs.ReadDir(ino)
	if err != nil {
		r.fatalf("readdir %s: %v", path, err)
	}
	var names []string
	for _, e := range ents[2:] {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	if want := sortedKeys(m.kids); !slices.Equal(names, want) {
		r.fatalf("%s holds %v, model %v", path, names, want)
	}
	for _, e := range ents[2:] {
		r.compareNode(m.kids[e.Name], e.Ino, path+e.Name)
	}
	if a := mval(fs.GetAttr(ino)).in(r); int(a.Nlink) != m.nlink {
		r.fatalf("%s: nlink %d, model %d", path, a.Nlink, m.nlink)
	}
}

func (r *modelRun) compareNode(m *mNode, ino vlfs.Ino, path string) {
	fs := r.im.fs
	a := mval(fs.GetAttr(ino)).in(r)
	switch {
	case m.dir:
		r.compareDir(m, ino, path+"/")
		return
	case m.link != "":
		if s := mval(fs.Readlink(ino)).in(r); s != m.link {
			r.fatalf("%s -> %q, model %q", path, s, m.link)
		}
	default:
		buf := make([]byte, len(m.data)+1)
		n := mval(fs.Read(ino, 0, buf)).in(r)
		if a.Size != uint64(len(m.data)) || !bytes.Equal(buf[:n], m.data) {
			r.fatalf("%s: size %d, model %d; contents differ at %d", path, a.Size, len(m.data), firstDiff(buf[:n], m.data))
		}
	}
	if int(a.Nlink) != m.nlink {
		r.fatalf("%s: nlink %d, model %d", path, a.Nlink, m.nlink)
	}
	names := mval(fs.Listxattr(ino)).in(r)
	var want []string
	for k := range m.xattr {
		want = append(want, k)
	}
	sort.Strings(want)
	if !slices.Equal(names, want) && len(names)+len(want) > 0 {
		r.fatalf("%s: xattrs %v, model %v", path, names, want)
	}
}

func (r *modelRun) opFallocate() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	off, length := r.rng.Intn(len(n.data)+20000), 1+r.rng.Intn(30000)
	modes := []uint32{0, vlfs.FallocKeepSize, vlfs.FallocPunchHole | vlfs.FallocKeepSize, vlfs.FallocZeroRange, vlfs.FallocZeroRange | vlfs.FallocKeepSize}
	mode := modes[r.rng.Intn(len(modes))]
	err := r.im.fs.Fallocate(r.fileIno(p), mode, int64(off), int64(length))
	r.expect(fmt.Sprintf("fallocate %v/%s mode %#x [%d,+%d)", p.dir, p.name, mode, off, length), err, nil)
	end := off + length
	if mode&(vlfs.FallocPunchHole|vlfs.FallocZeroRange) != 0 && off < len(n.data) {
		clear(n.data[off:min(end, len(n.data))])
	}
	if end > len(n.data) && mode&vlfs.FallocKeepSize == 0 {
		n.data = append(n.data, make([]byte, end-len(n.data))...)
	}
}

func (r *modelRun) opXattr() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	ino := r.fileIno(p)
	name := fmt.Sprintf("user.%d", r.rng.Intn(4))
	if n.xattr == nil {
		n.xattr = map[string]string{}
	}
	_, had := n.xattr[name]
	switch r.rng.Intn(3) {
	case 0:
		v := fmt.Sprint(r.rng.Intn(1e6))
		r.expect("setxattr "+name, r.im.fs.Setxattr(ino, name, []byte(v), 0), nil)
		n.xattr[name] = v
	case 1:
		var want error
		if !had {
			want = vlfs.ErrNoXattr
		}
		r.expect("removexattr "+name, r.im.fs.Removexattr(ino, name), want)
		delete(n.xattr, name)
	default:
		v, err := r.im.fs.Getxattr(ino, name)
		var want error
		if !had {
			want = vlfs.ErrNoXattr
		}
		r.expect("getxattr "+name, err, want)
		if had && string(v) != n.xattr[name] {
			r.fatalf("getxattr %v/%s %s = %q, model %q", p.dir, p.name, name, v, n.xattr[name])
		}
	}
}

// opOpenUnlinked opens a file, removes its last name, and keeps using it.
func (r *modelRun) opOpenUnlinked() {
	p, n, ok := r.file()
	if !ok || n.nlink != 1 {
		return
	}
	fs := r.im.fs
	ino := r.fileIno(p)
	r.expect("open", fs.Open(ino), nil)
	r.expect(fmt.Sprintf("unlink open %v/%s", p.dir, p.name), fs.Unlink(r.ino(p.dir), p.name), nil)
	delete(r.mdir(p.dir).kids, p.name)
	data := []byte("still writable")
	_, err := fs.Write(ino, int64(len(n.data)), data)
	r.expect("write unlinked", err, nil)
	want := append(n.data, data...)
	buf := make([]byte, len(want)+1)
	got, err := fs.Read(ino, 0, buf)
	r.expect("read unlinked", err, nil)
	if !bytes.Equal(buf[:got], want) {
		r.fatalf("unlinked file reads %d bytes, want %d", got, len(want))
	}
	if r.rng.Intn(2) == 0 {
		r.expect("sync", fs.Sync(), nil)
		r.check()
	}
	r.expect("release", fs.Release(ino), nil)
	if _, err := fs.GetAttr(ino); !errors.Is(err, vlfs.ErrNotExist) && !r.mayRemain(err) {
		r.fatalf("released unlinked inode %d still exists: %v", ino, err)
	}
}

// mayRemain says whether a GetAttr of a released inode number may find
// it still there: in a shared file system another run may hold a lookup
// of it (until its Forget) or have a new inode in its number.
func (r *modelRun) mayRemain(err error) bool {
	return r.shared && err == nil
}

// opTmpfile makes an unnamed file (O_TMPFILE), writes it, and either names
// it with Link or lets it go, when it must be freed.
func (r *modelRun) opTmpfile() {
	p := r.randPath()
	fs := r.im.fs
	a, err := fs.CreateTmp(r.ino(p.dir), 0o600, 0, 0)
	r.expect(fmt.Sprintf("create unnamed in %v", p.dir), err, nil)
	if err != nil {
		return
	}
	r.expect("open unnamed", fs.Open(a.Ino), nil)
	data := make([]byte, []int{0, 100, 5000, 70000}[r.rng.Intn(4)])
	r.rng.Read(data)
	_, err = fs.Write(a.Ino, 0, data)
	r.expect("write unnamed", err, nil)
	if r.rng.Intn(3) == 0 {
		r.expect("sync", fs.Sync(), nil)
		r.check()
	}
	named := false
	if r.rng.Intn(2) == 0 {
		d := r.mdir(p.dir)
		b, err := fs.Link(a.Ino, r.ino(p.dir), p.name)
		var want error
		if d.kids[p.name] != nil {
			want = vlfs.ErrExist
		}
		r.expect(fmt.Sprintf("name unnamed %v/%s", p.dir, p.name), err, want)
		if err == nil {
			fs.Forget(b.Ino, 1)
			d.kids[p.name] = &mNode{nlink: 1, data: data}
			named = true
		}
	}
	r.expect("release unnamed", fs.Release(a.Ino), nil)
	fs.Forget(a.Ino, 1) // CreateTmp's lookup
	if _, err := fs.GetAttr(a.Ino); !named && !errors.Is(err, vlfs.ErrNotExist) && !r.mayRemain(err) {
		r.fatalf("released unnamed inode %d still exists: %v", a.Ino, err)
	}
}
