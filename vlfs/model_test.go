package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"
	"time"
)

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

// modelRun drives a file system and the model with the same random
// operations and compares them.
type modelRun struct {
	t    *testing.T
	rng  *rand.Rand
	im   *testImage
	root *mNode
	log  []string
}

func TestRandomOpsAgainstModel(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -vlfs.seed=%d)", seed, seed)
	steps := 3000
	if testing.Short() {
		steps = 600
	}
	for round := range 3 {
		r := &modelRun{t: t, rng: rand.New(rand.NewSource(seed + int64(round))), im: newImage(t, 48<<20),
			root: &mNode{dir: true, kids: map[string]*mNode{}, nlink: 2}}
		r.root.up = r.root
		if round == 1 {
			// Tiny caches and dirty limit: every path through eviction
			// and early write-out gets exercised.
			r.im.limits = &cacheLimits{inodes: 2, iblks: 1, nodes: 1, dirty: 3}
			r.im.o.DirtyLimitBytes = 16 << 10
			r.im.remount()
		}
		r.run(steps)
	}
}

func (r *modelRun) run(steps int) {
	defer func() {
		if r.t.Failed() {
			r.t.Logf("last operations:\n%s", lastLines(r.log, 20))
		}
	}()
	for i := 0; i < steps && !r.t.Failed(); i++ {
		r.step()
		if r.rng.Intn(100) == 0 {
			r.im.check()
		}
	}
	r.log = append(r.log, "final remount")
	r.im.remount()
	r.compareTree()
}

func lastLines(l []string, n int) string {
	var b bytes.Buffer
	for _, s := range l[max(0, len(l)-n):] {
		fmt.Fprintln(&b, s)
	}
	return b.String()
}

var modelNames = []string{"a", "b", "c", "d", "e", "f"}

func (r *modelRun) step() {
	type op struct {
		w  int
		fn func()
	}
	ops := []op{
		{10, r.opCreate}, {5, r.opMkdir}, {20, r.opWrite}, {5, r.opTruncate}, {6, r.opUnlink},
		{4, r.opRmdir}, {8, r.opRename}, {4, r.opLink}, {2, r.opSymlink}, {6, r.opRead},
		{2, r.opSync}, {1, r.opRemount}, {3, r.opFallocate}, {4, r.opXattr}, {2, r.opOpenUnlinked},
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
	return mPath{dir: ds[r.rng.Intn(len(ds))], name: modelNames[r.rng.Intn(len(modelNames))]}
}

func (r *modelRun) mdir(p []string) *mNode {
	n := r.root
	for _, s := range p {
		n = n.kids[s]
	}
	return n
}

// ino resolves a model directory path in the file system.
func (r *modelRun) ino(p []string) Ino {
	ino := RootIno
	for _, s := range p {
		a, err := r.im.fs.Lookup(ino, s)
		if err != nil {
			r.t.Fatalf("resolving %v: %v", p, err)
		}
		r.im.fs.Forget(a.Ino, 1)
		ino = a.Ino
	}
	return ino
}

func (r *modelRun) expect(what string, err, want error) {
	r.log = append(r.log, fmt.Sprintf("%s -> %v", what, err))
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		r.t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func (r *modelRun) opCreate() {
	p := r.randPath()
	d := r.mdir(p.dir)
	a, err := r.im.fs.Create(r.ino(p.dir), p.name, 0o644, 0, 0)
	var want error
	if d.kids[p.name] != nil {
		want = ErrExist
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
		want = ErrExist
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
		want = ErrExist
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

func (r *modelRun) fileIno(p mPath) Ino {
	a, err := r.im.fs.Lookup(r.ino(p.dir), p.name)
	if err != nil {
		r.t.Fatalf("lookup %v/%s: %v", p.dir, p.name, err)
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

func (r *modelRun) opTruncate() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	size := r.rng.Intn(len(n.data) + 10000)
	_, err := r.im.fs.SetAttr(r.fileIno(p), SetAttr{Mask: SetSize, Size: uint64(size)})
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
		r.t.Fatalf("read %v/%s: %d bytes, model %d, first difference at %d", p.dir, p.name, got, len(n.data), firstDiff(buf[:got], n.data))
	}
}

func (r *modelRun) opUnlink() {
	p := r.randPath()
	d := r.mdir(p.dir)
	err := r.im.fs.Unlink(r.ino(p.dir), p.name)
	var want error
	switch n := d.kids[p.name]; {
	case n == nil:
		want = ErrNotExist
	case n.dir:
		want = ErrIsDir
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
		want = ErrNotExist
	case !n.dir:
		want = ErrNotDir
	case len(n.kids) > 0:
		want = ErrNotEmpty
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
		want = ErrExist
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
		flags = RenameNoReplace
	case 1:
		flags = RenameExchange
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
		return ErrNotExist
	case flags == RenameExchange && dst == nil:
		return ErrNotExist
	case flags == RenameNoReplace && dst != nil:
		return ErrExist
	case dst == src:
		return nil
	case src.dir && inside(nd, src):
		return ErrInvalid
	}
	if flags == RenameExchange {
		if dst.dir && inside(od, dst) {
			return ErrInvalid
		}
		od.kids[on], nd.kids[nn] = dst, src
		r.reparent(src, od, nd)
		r.reparent(dst, nd, od)
		return nil
	}
	if dst != nil {
		switch {
		case src.dir && !dst.dir:
			return ErrNotDir
		case src.dir && len(dst.kids) > 0:
			return ErrNotEmpty
		case !src.dir && dst.dir:
			return ErrIsDir
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
	r.log = append(r.log, "remount")
	r.im.remount()
	r.compareTree()
}

// compareTree walks the model and the file system and compares names,
// types, link counts, sizes and contents.
func (r *modelRun) compareTree() {
	r.compareDir(r.root, RootIno, "/")
}

func (r *modelRun) compareDir(m *mNode, ino Ino, path string) {
	fs := r.im.fs
	ents, err := fs.ReadDir(ino)
	if err != nil {
		r.t.Fatalf("readdir %s: %v", path, err)
	}
	var names []string
	for _, e := range ents[2:] {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	if want := sortedKeys(m.kids); !slices.Equal(names, want) {
		r.t.Fatalf("%s holds %v, model %v", path, names, want)
	}
	for _, e := range ents[2:] {
		r.compareNode(m.kids[e.Name], e.Ino, path+e.Name)
	}
	if a := must(fs.GetAttr(ino)).ok(r.t); int(a.Nlink) != m.nlink {
		r.t.Fatalf("%s: nlink %d, model %d", path, a.Nlink, m.nlink)
	}
}

func (r *modelRun) compareNode(m *mNode, ino Ino, path string) {
	fs := r.im.fs
	a := must(fs.GetAttr(ino)).ok(r.t)
	switch {
	case m.dir:
		r.compareDir(m, ino, path+"/")
		return
	case m.link != "":
		if s := must(fs.Readlink(ino)).ok(r.t); s != m.link {
			r.t.Fatalf("%s -> %q, model %q", path, s, m.link)
		}
	default:
		buf := make([]byte, len(m.data)+1)
		n := must(fs.Read(ino, 0, buf)).ok(r.t)
		if a.Size != uint64(len(m.data)) || !bytes.Equal(buf[:n], m.data) {
			r.t.Fatalf("%s: size %d, model %d; contents differ at %d", path, a.Size, len(m.data), firstDiff(buf[:n], m.data))
		}
	}
	if int(a.Nlink) != m.nlink {
		r.t.Fatalf("%s: nlink %d, model %d", path, a.Nlink, m.nlink)
	}
	names := must(fs.Listxattr(ino)).ok(r.t)
	var want []string
	for k := range m.xattr {
		want = append(want, k)
	}
	sort.Strings(want)
	if !slices.Equal(names, want) && len(names)+len(want) > 0 {
		r.t.Fatalf("%s: xattrs %v, model %v", path, names, want)
	}
}

func (r *modelRun) opFallocate() {
	p, n, ok := r.file()
	if !ok {
		return
	}
	off, length := r.rng.Intn(len(n.data)+20000), 1+r.rng.Intn(30000)
	err := r.im.fs.Fallocate(r.fileIno(p), 0, int64(off), int64(length))
	r.expect(fmt.Sprintf("fallocate %v/%s [%d,+%d)", p.dir, p.name, off, length), err, nil)
	if end := off + length; end > len(n.data) {
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
			want = ErrNoXattr
		}
		r.expect("removexattr "+name, r.im.fs.Removexattr(ino, name), want)
		delete(n.xattr, name)
	default:
		v, err := r.im.fs.Getxattr(ino, name)
		var want error
		if !had {
			want = ErrNoXattr
		}
		r.expect("getxattr "+name, err, want)
		if had && string(v) != n.xattr[name] {
			r.t.Fatalf("getxattr %v/%s %s = %q, model %q", p.dir, p.name, name, v, n.xattr[name])
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
		r.t.Fatalf("unlinked file reads %d bytes, want %d", got, len(want))
	}
	if r.rng.Intn(2) == 0 {
		r.expect("sync", fs.Sync(), nil)
		r.im.check()
	}
	r.expect("release", fs.Release(ino), nil)
	if _, err := fs.GetAttr(ino); !errors.Is(err, ErrNotExist) {
		r.t.Fatalf("released unlinked inode %d still exists: %v", ino, err)
	}
}
