package exporter

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// LookupFunc resolves a host name to its addresses (net.Resolver's
// LookupNetIP for "ip"); tests give their own.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// listenAddr is one listen address, read for CheckListen.
type listenAddr struct {
	text  string // as given
	host  string // lower-cased
	port  int
	every bool         // "", 0.0.0.0 or ::: every address of the port
	ips   []netip.Addr // the host's addresses (one for an IP); nil: unknown
}

// CheckListen refuses, before anything is bound, two listen addresses
// (HOST:PORT, ports already checked as numbers) that would bind one port
// where they meet: the same address given twice, the same IP however
// spelt, a host name that resolves to an address another one names (Go
// listens on one of the name's addresses, which one is not ours to know,
// so any shared address counts), or either of them every address of the
// port (":P", "0.0.0.0:P", "[::]:P": Go's "[::]" and ":P" listen on IPv4
// too, and a socket on every address and one on a single address of the
// same port do not both bind). Port 0 picks a free port each time, so it
// never overlaps. A name that does not resolve is not judged here: the bind
// says why it cannot listen. Only names sharing a port with another
// address are looked up. The error names both addresses, cut as arguments
// are (safetext.Arg).
func CheckListen(ctx context.Context, addrs []string, lookup LookupFunc) error {
	byPort := map[int][]*listenAddr{}
	var all []*listenAddr
	for _, a := range addrs {
		host, p, err := net.SplitHostPort(a)
		if err != nil {
			return fmt.Errorf("%s: want HOST:PORT or :PORT", safetext.Arg(a))
		}
		port, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("%s: the port must be a number", safetext.Arg(a))
		}
		la := &listenAddr{text: a, host: strings.ToLower(host), port: port}
		if ip, err := netip.ParseAddr(host); err == nil {
			ip = ip.Unmap()
			la.every, la.ips = ip.IsUnspecified(), []netip.Addr{ip}
		}
		la.every = la.every || host == ""
		if port != 0 {
			byPort[port] = append(byPort[port], la)
			all = append(all, la)
		}
	}
	for _, la := range all {
		if len(byPort[la.port]) > 1 && la.ips == nil && !la.every {
			ips, err := lookup(ctx, la.host)
			if err != nil {
				continue // unknown: the bind says why
			}
			for _, ip := range ips {
				la.ips = append(la.ips, ip.Unmap())
			}
		}
	}
	for i, a := range all {
		for _, b := range all[i+1:] {
			if err := overlap(a, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// overlap is the error of two addresses that bind one port where they
// meet, or nil.
func overlap(a, b *listenAddr) error {
	if a.port != b.port {
		return nil
	}
	if a.host == b.host {
		return fmt.Errorf("%s is given twice", safetext.Arg(b.text))
	}
	why := ""
	switch {
	case a.every:
		why = safetext.Arg(a.text) + " is every address"
	case b.every:
		why = safetext.Arg(b.text) + " is every address"
	default:
		ip, ok := shared(a.ips, b.ips)
		if !ok {
			return nil
		}
		var names []string
		for _, x := range []*listenAddr{a, b} {
			if _, err := netip.ParseAddr(x.host); err != nil {
				names = append(names, safetext.Arg(x.host)+" is "+ip.String())
			}
		}
		why = strings.Join(names, ", ")
		if why == "" {
			why = "both are " + ip.String()
		}
	}
	return fmt.Errorf("%s and %s overlap (the same port on the same address: %s): give one of them", safetext.Arg(a.text), safetext.Arg(b.text), why)
}

// shared returns an address in both lists.
func shared(a, b []netip.Addr) (netip.Addr, bool) {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return x, true
			}
		}
	}
	return netip.Addr{}, false
}
