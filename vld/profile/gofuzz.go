//go:build gofuzz

package profile

// Fuzz is the go-fuzz adapter of FuzzDecode: 1 for a profile that decodes
// (and then summarises and re-encodes), 0 otherwise.
func Fuzz(data []byte) int {
	p, err := Decode(data)
	if err != nil {
		return 0
	}
	p.Summarize()
	if _, err := Encode(p); err != nil {
		panic("a decoded profile does not encode: " + err.Error())
	}
	return 1
}
