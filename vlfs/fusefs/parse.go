package fusefs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadOption is wrapped by ParseOptions errors.
var ErrBadOption = errors.New("fusefs: bad mount option")

// mount8Only are options that mount(8), fstab or systemd consume or that mean
// nothing to a FUSE file system served by a daemon; they arrive when vlfs is
// started from /etc/fstab and are ignored. Prefixes end in '*'.
var mount8Only = []string{
	"defaults", "auto", "noauto", "user", "users", "nouser", "owner", "group",
	"nofail", "_netdev", "exec", "noexec", "atime", "noatime", "relatime",
	"norelatime", "strictatime", "nostrictatime", "diratime", "nodiratime",
	"lazytime", "nolazytime", "async", "loud", "silent", "x-*", "comment=*",
	"helper=*", "user=*", "users=*",
}

// ParseOptions applies a comma-separated -o option string to o. Items it
// does not know are returned in rest, in order, for the caller (vlfs-level
// options such as clock=real); options that only mount(8) understands are
// dropped. Errors wrap ErrBadOption.
func ParseOptions(s string, o *Options) (rest []string, err error) {
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" || isMount8Only(item) {
			continue
		}
		key, val, hasVal := strings.Cut(item, "=")
		ok, err := applyOption(o, key, val, hasVal)
		if err != nil {
			return nil, fmt.Errorf("-o %s: %w: %v", item, ErrBadOption, err)
		}
		if !ok {
			rest = append(rest, item)
		}
	}
	return rest, nil
}

func isMount8Only(item string) bool {
	for _, m := range mount8Only {
		if p, ok := strings.CutSuffix(m, "*"); ok && strings.HasPrefix(item, p) || item == m {
			return true
		}
	}
	return false
}

// applyOption sets one option; ok is false when the key is not ours.
func applyOption(o *Options, key, val string, hasVal bool) (ok bool, err error) {
	if flag := boolOption(o, key); flag != nil {
		if hasVal {
			return false, errors.New("takes no value")
		}
		*flag = !strings.HasPrefix(key, "no") || key == "nonempty"
		return true, nil
	}
	if !hasVal {
		return false, nil
	}
	return valueOption(o, key, val)
}

// boolOption returns the flag a bare option sets, or nil.
func boolOption(o *Options, key string) *bool {
	var unused bool
	switch key {
	case "ro", "rw":
		o.ReadOnly = key == "ro"
		return &unused
	case "default_permissions", "sync_read":
		return &unused // always on / meaningless here
	case "allow_other":
		return &o.AllowOther
	case "dev", "nodev":
		return &o.AllowDev
	case "suid", "nosuid":
		return &o.AllowSUID
	case "nonempty":
		return &o.NonEmpty
	case "writeback_cache":
		o.NoWritebackCache = false
		return &unused
	case "no_writeback_cache":
		o.NoWritebackCache = true
		return &unused
	}
	return nil
}

// valueOption handles key=value options.
func valueOption(o *Options, key, val string) (bool, error) {
	var err error
	switch key {
	case "fsname":
		o.FSName = val
	case "stats_file":
		o.StatsFile = val
	case "max_readahead":
		var n uint64
		n, err = strconv.ParseUint(val, 10, 32)
		o.MaxReadahead = uint32(n)
	case "image_readahead":
		var n uint64
		n, err = strconv.ParseUint(val, 10, 62)
		o.ImageReadahead = int64(n)
		if n == 0 {
			o.ImageReadahead = -1 // 0 turns it off; the zero field means default
		}
	case "readers":
		o.Readers, err = strconv.Atoi(val)
	case "max_readers":
		o.MaxReaders, err = strconv.Atoi(val)
	case "entry_timeout":
		o.EntryTimeout, err = seconds(val)
	case "attr_timeout":
		o.AttrTimeout, err = seconds(val)
	default:
		return false, nil
	}
	return true, err
}

// seconds parses a timeout in seconds (fractions allowed); 0 stays 0 by
// becoming negative, since a zero Options field means "default".
func seconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("want seconds >= 0, got %q", s)
	}
	if f == 0 {
		return -1, nil
	}
	return time.Duration(f * float64(time.Second)), nil
}
