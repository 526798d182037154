package cli

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// freePort is a port nothing listens on (bound and released at once).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestExporterListenAddresses: every --web.listen-address is bound before
// the exporter says it serves; an address given twice, or two that
// overlap (a host name resolved, every address of a port against one of
// them), is bad input (exit 2, one line, no "serving", said before any
// address is bound); an address
// another socket holds is exit 1 with one line naming it, never after a
// "serving" line for the others.
func TestExporterListenAddresses(t *testing.T) {
	c := testkit.New(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldAddr := held.Addr().String()
	p1, p2, p3, p4 := freePort(t), freePort(t), freePort(t), freePort(t)
	a1 := fmt.Sprintf("127.0.0.1:%d", p1)
	for _, tc := range []struct {
		name  string
		addrs []string
		code  int
		want  string // the whole stderr
	}{
		{"duplicate", []string{a1, a1}, 2,
			"offsetctl: --web.listen-address: " + a1 + " is given twice\n"},
		{"duplicate, host case", []string{"LOCALHOST:" + fmt.Sprint(p1), "localhost:" + fmt.Sprint(p1)}, 2,
			"offsetctl: --web.listen-address: localhost:" + fmt.Sprint(p1) + " is given twice\n"},
		{"overlap", []string{fmt.Sprintf(":%d", p2), fmt.Sprintf("127.0.0.1:%d", p2)}, 2,
			fmt.Sprintf("offsetctl: --web.listen-address: :%d and 127.0.0.1:%d overlap (the same port on the same address: :%d is every address): give one of them\n", p2, p2, p2)},
		{"overlap, every address first bound last", []string{fmt.Sprintf("127.0.0.1:%d", p2), fmt.Sprintf("[::]:%d", p2)}, 2,
			fmt.Sprintf("offsetctl: --web.listen-address: 127.0.0.1:%d and [::]:%d overlap (the same port on the same address: [::]:%d is every address): give one of them\n", p2, p2, p2)},
		{"overlap, a host name", []string{fmt.Sprintf("localhost:%d", p3), fmt.Sprintf("127.0.0.1:%d", p3)}, 2,
			fmt.Sprintf("offsetctl: --web.listen-address: localhost:%d and 127.0.0.1:%d overlap (the same port on the same address: localhost is 127.0.0.1): give one of them\n", p3, p3)},
		{"overlap, one IP spelt twice", []string{fmt.Sprintf("127.0.0.1:%d", p3), fmt.Sprintf("[::ffff:127.0.0.1]:%d", p3)}, 2,
			fmt.Sprintf("offsetctl: --web.listen-address: 127.0.0.1:%d and [::ffff:127.0.0.1]:%d overlap (the same port on the same address: both are 127.0.0.1): give one of them\n", p3, p3)},
		// Said before anything is bound: the address another socket
		// holds, between the two, is never tried.
		{"overlap before binding", []string{fmt.Sprintf("localhost:%d", p4), heldAddr, fmt.Sprintf("127.0.0.1:%d", p4)}, 2,
			fmt.Sprintf("offsetctl: --web.listen-address: localhost:%d and 127.0.0.1:%d overlap (the same port on the same address: localhost is 127.0.0.1): give one of them\n", p4, p4)},
		{"in use elsewhere", []string{a1, heldAddr}, 1,
			"offsetctl: --web.listen-address " + heldAddr + ": cannot listen: bind: address already in use\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"exporter", "--interval", "1s"}
			for _, a := range tc.addrs {
				args = append(args, "--web.listen-address", a)
			}
			// A bug that binds everything would serve until the context
			// ends: bounded, so the test fails rather than hangs.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := offsetctlCtx(ctx, t, c, args...)
			if r.code != tc.code || r.stderr != tc.want || r.stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and stderr %q", tc.addrs, r.code, r.stdout, r.stderr, tc.code, tc.want)
			}
			if strings.Contains(r.stderr, "serving") {
				t.Errorf("%v: said it serves though it could not bind every address: %q", tc.addrs, r.stderr)
			}
			// Nothing stays bound: the first address is free again.
			ln, err := net.Listen("tcp", tc.addrs[0])
			if err != nil {
				t.Errorf("%v: %s still bound after the exporter refused to start: %v", tc.addrs, tc.addrs[0], err)
			} else {
				ln.Close()
			}
		})
	}
}
