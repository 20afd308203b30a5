package vld

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// TestCoveredBlockKeptUntilNewerGroup: a block written before a commit is
// covered by that commit's group, and recovery compares it with the group's
// covers for as long as that group is the newest. A client that frees it
// afterwards and commits with no piece changed (only frees: no group is
// logged) must not see it reused, nor after a remount: overwriting it made
// recovery discard the durable group and fall back to a state whose blocks
// were already reused (the vlfs early-writeout crash failures).
func TestCoveredBlockKeptUntilNewerGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		remount bool // crash and remount after the quiet commit, then reuse
	}{
		{"after a commit that logs nothing", false},
		{"after a remount", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := device.NewMem(4 << 20)
			if err := Format(base, FormatOptions{Model: testModel(t, "carson-setia"), Kind: "test"}); err != nil {
				t.Fatal(err)
			}
			rec := device.NewCrash(base)
			v := openStarted(t, rec)
			bs := v.BlockSize()
			addrs, err := v.WriteBlocks([][]byte{block(bs, 1), block(bs, 2)}, WriteOpts{Meta: true})
			if err != nil {
				t.Fatal(err)
			}
			x, y := addrs[0], addrs[1] // x: superseded before the commit landed, as an early-written inode block
			want := []byte("piece 0 names only y")
			if err := v.Commit(map[uint32][]byte{0: want}); err != nil {
				t.Fatal(err)
			}
			if err := v.Free(x); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(nil); err != nil { // frees only: no group
				t.Fatal(err)
			}
			if tc.remount {
				img, err := rec.Image(device.State{Flushes: rec.Flushes()})
				if err != nil {
					t.Fatal(err)
				}
				rec = device.NewCrash(img)
				v = openMarked(t, rec, y)
			}
			live := []Addr{y}
			for {
				as, err := v.WriteBlocks([][]byte{block(bs, 9)}, WriteOpts{Meta: true})
				if err != nil {
					break // full
				}
				if as[0] == x {
					t.Errorf("block %d, covered by the newest group, reused before a newer group", x)
				}
				live = append(live, as...)
			}
			if err := v.Check(live); err != nil {
				t.Fatal(err)
			}
			// Crash with every write landed but no newer commit.
			img, err := rec.Image(device.State{Flushes: rec.Flushes(), Extra: rec.Epoch(rec.Flushes())})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Open(img, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Recovery().Discarded {
				t.Errorf("recovery discarded the durable commit group")
			}
			if p := got.Pieces()[0]; !bytes.HasPrefix(p, want) {
				t.Errorf("piece 0 after the crash = %.24q, want the committed %q", p, want)
			}
		})
	}
}

func openStarted(t *testing.T, dev device.Device) *Volume {
	t.Helper()
	return openMarked(t, dev)
}

// openMarked opens dev, marks live the client blocks given and starts.
func openMarked(t *testing.T, dev device.Device, live ...Addr) *Volume {
	t.Helper()
	v, err := Open(keepOpen{dev}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range live {
		if err := v.MarkLive(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	return v
}
