package fusefs

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/vlfs/vlfs/fuseserve"
)

func TestParseOptions(t *testing.T) {
	tests := []struct {
		in       string
		want     Options
		wantRest []string
		wantErr  bool
	}{
		{in: "", want: Options{}},
		{in: "ro,allow_other", want: Options{ReadOnly: true, Options: fuseserve.Options{AllowOther: true}}},
		{in: "rw,dev,suid,nonempty", want: Options{AllowDev: true, AllowSUID: true, NonEmpty: true}},
		{in: "dev,nodev", want: Options{}},
		{in: "fsname=/img/a.img,max_readahead=65536", want: Options{Options: fuseserve.Options{FSName: "/img/a.img"}, MaxReadahead: 65536}},
		{in: "readers=8,max_readers=64", want: Options{Options: fuseserve.Options{Readers: 8}, MaxReaders: 64}},
		{in: "entry_timeout=2.5,attr_timeout=0", want: Options{EntryTimeout: 2500 * time.Millisecond, AttrTimeout: -1}},
		{in: "no_writeback_cache", want: Options{NoWritebackCache: true}},
		{in: "stats_file=-", want: Options{StatsFile: "-"}},
		{in: "image_readahead=65536", want: Options{ImageReadahead: 65536}},
		{in: "image_readahead=0", want: Options{ImageReadahead: -1}},
		{in: "image_readahead=-5", wantErr: true},
		// mount(8) and fstab leftovers are dropped.
		{in: "defaults,noauto,user,_netdev,x-systemd.automount,noatime,exec", want: Options{}},
		// vlfs-level options go back to the caller, in order.
		{in: "clock=real,debug,ro", want: Options{ReadOnly: true}, wantRest: []string{"clock=real", "debug"}},
		{in: "readers=x", wantErr: true},
		{in: "entry_timeout=-1", wantErr: true},
		{in: "allow_other=1", wantErr: true},
	}
	for _, tc := range tests {
		var o Options
		rest, err := ParseOptions(tc.in, &o)
		if tc.wantErr {
			if !errors.Is(err, ErrBadOption) {
				t.Errorf("%q: error %v, want ErrBadOption", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(o, tc.want) || !reflect.DeepEqual(rest, tc.wantRest) {
			t.Errorf("%q: got %+v rest %q, want %+v rest %q", tc.in, o, rest, tc.want, tc.wantRest)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{AttrTimeout: -1}.withDefaults()
	if o.Readers != DefaultReaders || o.MaxReaders != DefaultMaxReaders || o.EntryTimeout != time.Second ||
		o.AttrTimeout != 0 || o.FSName != "vlfs" || o.StatsFile != DefaultStatsFile || o.Logf == nil ||
		o.ImageReadahead != DefaultImageReadahead {
		t.Fatalf("defaults: %+v", o)
	}
	if o := (Options{Options: fuseserve.Options{Readers: 50}}).withDefaults(); o.MaxReaders < 50 {
		t.Fatalf("MaxReaders %d below Readers 50", o.MaxReaders)
	}
}
