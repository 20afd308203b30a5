package logical

// MappedCount is how many logical blocks are mapped: written and not
// trimmed since (with in-place placement, every block: homes are fixed).
// It walks the map, so it costs O(Blocks) and is meant for reports.
func (d *Disk) MappedCount() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := int64(0)
	for _, a := range d.m {
		if a != 0 {
			n++
		}
	}
	return n
}
