package vlfs

import (
	"math/rand"
	"testing"
)

// FuzzMountCorrupt runs fuzzMount (fuzz.go), the target its go-fuzz
// adapter FuzzGoMountCorrupt runs too, on one base image built once.
func FuzzMountCorrupt(f *testing.F) {
	img, err := fuzzBaseImage()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x50, 0, 0xff})
	f.Add([]byte{0, 0x10, 0x30, 0, 0x01, 0, 0x20, 0x60, 0, 0x80})
	f.Fuzz(func(t *testing.T, damage []byte) {
		if _, err := fuzzMount(img, damage); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzOpsModel drives the reference model of model_test.go with the
// fuzzer's bytes as its source of choices: each byte picks an operation
// or an argument; the file system must agree with the model after every
// operation, at remounts and at the end. Native engine only: the model
// is test code (docs/fuzzing.md).
func FuzzOpsModel(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("create write rename link unlink mkdir sync remount"))
	f.Add([]byte{0, 1, 2, 3, 10, 20, 30, 40, 50, 60, 70, 80, 90, 3, 9, 27, 81, 243, 200, 100, 50, 25})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			data = data[:400]
		}
		r := &modelRun{t: t, rng: rand.New(&byteSource{b: data}), im: newImage(t, 8<<20),
			root: &mNode{dir: true, kids: map[string]*mNode{}, nlink: 2}}
		r.root.up = r.root
		r.run(len(data) / 3)
	})
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
