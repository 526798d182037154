package exporter

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// CheckListen refuses every pair of listen addresses that would bind one
// port where they meet, naming both, and lets the others through; a name
// that does not resolve is left to the bind, and a name is looked up only
// when another address shares its port.
func TestCheckListen(t *testing.T) {
	var looked []string
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		looked = append(looked, host)
		switch host {
		case "db.example":
			return []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::1")}, nil
		case "mapped.example":
			return []netip.Addr{netip.MustParseAddr("::ffff:10.0.0.2")}, nil
		case "other.example":
			return []netip.Addr{netip.MustParseAddr("10.0.0.9")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, tc := range []struct {
		addrs []string
		want  string
	}{
		{[]string{":9308"}, ""},
		{[]string{":9308", ":9309", "127.0.0.1:9310"}, ""},
		{[]string{":0", ":0", "127.0.0.1:0"}, ""},
		{[]string{"127.0.0.1:9308", "10.0.0.1:9308", "[::1]:9308"}, ""},
		{[]string{"db.example:9308", "other.example:9308"}, ""},
		{[]string{"nosuch.example:9308", "127.0.0.1:9308"}, ""},
		{[]string{"127.0.0.1:9308", "127.0.0.1:09308"}, "127.0.0.1:09308 is given twice"},
		{[]string{"DB.example:9308", "db.example:9308"}, "db.example:9308 is given twice"},
		{[]string{":9308", ":9308"}, ":9308 is given twice"},
		{[]string{":9308", "10.0.0.1:9308"}, ":9308 and 10.0.0.1:9308 overlap (the same port on the same address: :9308 is every address): give one of them"},
		{[]string{"10.0.0.1:9308", "0.0.0.0:9308"}, "10.0.0.1:9308 and 0.0.0.0:9308 overlap (the same port on the same address: 0.0.0.0:9308 is every address): give one of them"},
		{[]string{"[::]:9308", "[::1]:9308"}, "[::]:9308 and [::1]:9308 overlap (the same port on the same address: [::]:9308 is every address): give one of them"},
		{[]string{"0.0.0.0:9308", "[::]:9308"}, "0.0.0.0:9308 and [::]:9308 overlap (the same port on the same address: 0.0.0.0:9308 is every address): give one of them"},
		{[]string{":9308", "nosuch.example:9308"}, ":9308 and nosuch.example:9308 overlap (the same port on the same address: :9308 is every address): give one of them"},
		{[]string{"db.example:9308", "[::1]:9308"}, "db.example:9308 and [::1]:9308 overlap (the same port on the same address: db.example is ::1): give one of them"},
		{[]string{"[::ffff:10.0.0.2]:9308", "mapped.example:9308"}, "[::ffff:10.0.0.2]:9308 and mapped.example:9308 overlap (the same port on the same address: mapped.example is 10.0.0.2): give one of them"},
	} {
		err := CheckListen(context.Background(), tc.addrs, lookup)
		if got := errString(err); got != tc.want {
			t.Errorf("CheckListen(%q) = %q, want %q", tc.addrs, got, tc.want)
		}
	}
	looked = nil
	if err := CheckListen(context.Background(), []string{"db.example:9308", "other.example:9309"}, lookup); err != nil || len(looked) != 0 {
		t.Errorf("names on ports of their own: %v, looked up %q; want no lookup", err, looked)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
