package ondisk

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"a", true},
		{"...", true},
		{".hidden", true},
		{"a b\tc\n", true},
		{"\xff\xfe", true}, // bytes, not UTF-8
		{strings.Repeat("x", MaxNameLen), true},
		{"", false},
		{".", false},
		{"..", false},
		{"/", false},
		{"a/b", false},
		{"trailing/", false},
		{"\x00", false},
		{"a\x00b", false},
		{strings.Repeat("x", MaxNameLen+1), false},
	}
	for _, tc := range tests {
		if got := ValidName(tc.name); got != tc.want {
			t.Errorf("ValidName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
