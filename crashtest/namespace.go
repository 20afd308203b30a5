package crashtest

import "strings"

// namespace tracks which paths exist, well enough for the generator to
// pick sensible persistence targets; the oracle never uses it (it reads
// the real file system).
type namespace map[string]bool

func newNamespace(setup []Op) namespace {
	ns := namespace{}
	for _, op := range setup {
		ns.apply(op)
	}
	return ns
}

func (ns namespace) exists(p string) bool { return p == "" || ns[p] }

// apply updates the namespace for op, ignoring ops that would fail.
func (ns namespace) apply(op Op) {
	switch op.Kind {
	case "creat", "mkdir", "tmpfile":
		if ns.exists(parentOf(op.Args[0])) {
			ns[op.Args[0]] = true
		}
	case "symlink", "link":
		if ns.exists(parentOf(op.Args[1])) && !ns[op.Args[1]] {
			ns[op.Args[1]] = true
		}
	case "unlink", "rmdir":
		delete(ns, op.Args[0])
	case "rename":
		ns.rename(op.Args[0], op.Args[1])
	}
}

// rename moves src and everything under it to dst.
func (ns namespace) rename(src, dst string) {
	if !ns[src] || !ns.exists(parentOf(dst)) {
		return
	}
	var moved []string
	for p := range ns {
		if p == src || strings.HasPrefix(p, src+"/") {
			moved = append(moved, p)
		}
	}
	for _, p := range moved {
		delete(ns, p)
	}
	for _, p := range moved {
		ns[dst+strings.TrimPrefix(p, src)] = true
	}
}
