//go:build gofuzz

package disk

// Fuzz is the go-fuzz adapter of FuzzParse: 1 for a model that parses and
// lays out, 0 otherwise.
func Fuzz(data []byte) int {
	m, err := Parse(data)
	if err != nil {
		return 0
	}
	if _, err := NewLayout(m, SectorSize, 1<<16); err != nil {
		return 0
	}
	return 1
}
