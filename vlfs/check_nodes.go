package vlfs

import "fmt"

// The node part of the inode map, checked (file-system version
// FSVersionNodeMap): every node the map places is a block of its own,
// named by exactly one tree pointer, and every node a tree names is
// allocated.

// nodeEntries claims the block of every node the map places.
func (c *checker) nodeEntries() {
	m := c.fs.imap
	placed := int64(0)
	for n, a := range m.nodes {
		if a == 0 {
			continue
		}
		placed++
		if !m.nodeIsUsed(uint64(n)) {
			c.fail(FindCache, 0, a, "node %d at %d: placed by the map but its number is free", n, a)
		}
		c.claim(a, 0, fmt.Sprintf("node %d", n))
	}
	if placed != m.placed {
		c.fail(FindCache, 0, 0, "the node map places %d nodes, its count says %d", placed, m.placed)
	}
}

// nodeRef records that ino's tree names node n (at a; 0 if not written).
func (c *checker) nodeRef(ino Ino, n, a uint64) {
	m := c.fs.imap
	switch {
	case n == 0 || !m.nodeIsUsed(n):
		c.fail(FindUnreadable, ino, a, "inode %d: names node %d, which is free", ino, n)
	case m.node(n) != a:
		c.fail(FindCache, ino, a, "inode %d: node %d loaded at %d, the map places it at %d", ino, n, a, m.node(n))
	}
	if prev, dup := c.nodeOf[n]; dup {
		c.fail(FindSharedBlock, ino, a, "node %d named by inode %d and by inode %d", n, prev, ino)
		return
	}
	c.nodeOf[n] = ino
}

// nodeLeaks reports the nodes the map places that no tree names.
func (c *checker) nodeLeaks() {
	m := c.fs.imap
	for n, a := range m.nodes {
		if a == 0 {
			continue
		}
		if _, ok := c.nodeOf[uint64(n)]; !ok {
			c.fail(FindLeakedBlock, 0, a, "node %d at %d: no tree names it", n, a)
		}
	}
}
