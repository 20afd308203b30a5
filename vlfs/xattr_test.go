package vlfs

import "testing"

// TestXattrNamespaces: names outside the Linux namespaces vlfs keeps are
// refused, as ext4 and tmpfs refuse them, for set, get and remove alike;
// a bare namespace prefix is invalid.
func TestXattrNamespaces(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	for name, want := range map[string]error{
		"foo.a": ErrNotSupported, "user": ErrNotSupported, "system.posix_acl_access": ErrNotSupported,
		"USER.a": ErrNotSupported, "user.": ErrInvalid, "trusted.": ErrInvalid, "security.": ErrInvalid,
	} {
		wantErr(t, fs.Setxattr(x.f, name, []byte("v"), 0), want)
		_, err := fs.Getxattr(x.f, name)
		wantErr(t, err, want)
		wantErr(t, fs.Removexattr(x.f, name), want)
	}
	for _, name := range []string{"user.a", "trusted.b", "security.c"} {
		must(0, fs.Setxattr(x.f, name, []byte("v"), 0)).ok(t)
	}
	if names := must(fs.Listxattr(x.f)).ok(t); len(names) != 3 {
		t.Fatalf("listxattr %q, want the three accepted names", names)
	}
}
