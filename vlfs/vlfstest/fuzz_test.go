package vlfstest

import "testing"

// FuzzMountCorrupt runs fuzzMount (fuzz_mount.go), the target its go-fuzz
// adapter FuzzGoMountCorrupt runs too, on one base image built once.
func FuzzMountCorrupt(f *testing.F) { fuzzDamage(f, fuzzMount) }

// FuzzRepair damages the base image and repairs it (fuzzRepair): a
// repair either changes nothing or leaves a clean image that mounts.
func FuzzRepair(f *testing.F) { fuzzDamage(f, fuzzRepair) }

// fuzzDamage runs target on the base image, built once, with the fuzzer's
// bytes as the damage (fuzzMount's encoding), from the same seeds.
func fuzzDamage(f *testing.F, target func(img, damage []byte) (int, error)) {
	img, err := fuzzBaseImage()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x50, 0, 0xff})
	f.Add([]byte{0, 0x10, 0x30, 0, 0x01, 0, 0x20, 0x60, 0, 0x80})
	f.Fuzz(func(t *testing.T, damage []byte) {
		if _, err := target(img, damage); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzOpsModel runs fuzzOpsModel (model.go), the target its go-fuzz
// adapter FuzzGoOpsModel runs too: the fuzzer's bytes drive the reference
// model, and the file system must agree with it throughout.
func FuzzOpsModel(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("create write rename link unlink mkdir sync remount"))
	f.Add([]byte{0, 1, 2, 3, 10, 20, 30, 40, 50, 60, 70, 80, 90, 3, 9, 27, 81, 243, 200, 100, 50, 25})
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := fuzzOpsModel(data); err != nil {
			t.Fatal(err)
		}
	})
}
