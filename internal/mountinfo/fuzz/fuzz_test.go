package fuzz

import "testing"

// FuzzParseLine runs fuzzParseLine (fuzz.go): parsing never panics, and an
// accepted line has a type, a source and the separator. Its go-fuzz adapter
// FuzzGoParseLine shares the target.
func FuzzParseLine(f *testing.F) {
	f.Add("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw")
	f.Add(`1 2 3:4 / /a\040b rw - t s o`)
	f.Fuzz(func(t *testing.T, line string) {
		if _, err := fuzzParseLine(line); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzParseLineBytes: go-fuzz's byte entry takes the bytes as the line.
func TestFuzzParseLineBytes(t *testing.T) {
	for _, c := range []struct {
		line  string
		score int
	}{{"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw", 1}, {"garbage", 0}, {"", 0}} {
		if n, err := fuzzParseLineBytes([]byte(c.line)); n != c.score || err != nil {
			t.Errorf("%q: bytes entry = %d, %v; want %d, nil", c.line, n, err, c.score)
		}
	}
}
