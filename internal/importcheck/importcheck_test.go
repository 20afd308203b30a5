package importcheck

import "testing"

// TestOnly: this package imports the standard library only.
func TestOnly(t *testing.T) {
	Only(t, "internal/importcheck")
}
