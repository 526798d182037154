package exporter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// record tells Warn when gathers start failing (once, not per failed
// round; again per changed error only with WarnChanges) and Recovered
// when one is complete again, with how many failed.
func TestRecordWarnsOnTransitions(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:1: connection refused")
	frozen := errors.New("context deadline exceeded")
	partial := gatherStats{groupErrors: 2, partitionErrors: 3}
	missing := gatherStats{groupErrors: 1, missing: 1}
	missingAndFailed := gatherStats{groupErrors: 2, missing: 1}
	type round struct {
		err error
		st  gatherStats
	}
	ok := round{}
	for _, tc := range []struct {
		name    string
		changes bool
		rounds  []round
		want    []string // what Warn and Recovered were told, in order
	}{
		{"complete rounds say nothing", false, []round{ok, ok, ok}, nil},
		{"first gather fails", false, []round{{err: down}, {err: down}}, []string{"warn: " + down.Error()}},
		{"fail, fail, recover", false, []round{ok, {err: down}, {err: frozen}, {err: down}, ok, ok},
			[]string{"warn: " + down.Error(), "recovered after 3"}},
		{"partial gather is failing too", false, []round{ok, {st: partial}, ok},
			[]string{"warn: 2 group(s) and 3 group-partition(s) could not be read", "recovered after 1"}},
		{"time lag not measured is failing too", false, []round{ok, {st: gatherStats{timeLagMissed: 4}}, ok},
			[]string{"warn: the time lag of 4 group-partition(s) could not be read within the round's budget (half the interval)", "recovered after 1"}},
		{"two outages, two pairs", false, []round{{err: down}, ok, {err: frozen}, {err: frozen}, ok},
			[]string{"warn: " + down.Error(), "recovered after 1", "warn: " + frozen.Error(), "recovered after 2"}},
		{"named groups missing: their own lines (Missing), no warning", false, []round{ok, {st: missing}, {st: missing}, ok}, nil},
		// A round whose only group errors are named groups that do not
		// exist is complete (the others were read): the failing rounds
		// between are one outage each.
		{"missing, then another group failing too: warned then", false, []round{{st: missing}, {st: missingAndFailed}, {st: missing}, {st: missingAndFailed}, ok},
			[]string{"warn: 2 group(s) (1 of them named and not existing) and 0 group-partition(s) could not be read", "recovered after 1",
				"warn: 2 group(s) (1 of them named and not existing) and 0 group-partition(s) could not be read", "recovered after 1"}},
		{"WarnChanges: again per changed error", true, []round{{err: down}, {err: down}, {err: frozen}, {err: frozen}, ok},
			[]string{"warn: " + down.Error(), "warn: " + frozen.Error(), "recovered after 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			c := New(cluster.Config{}, Options{Interval: time.Second, WarnChanges: tc.changes,
				Warn:      func(err error) { got = append(got, "warn: "+err.Error()) },
				Recovered: func(n int) { got = append(got, fmt.Sprintf("recovered after %d", n)) }})
			for _, r := range tc.rounds {
				c.record(nil, 0, r.st, r.err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("told %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRecordWarnsOutsideTheLock: a Warn that blocks (stderr on a stalled
// log pipe) does not hold the collector's lock, which every scrape takes:
// the page is still served meanwhile.
func TestRecordWarnsOutsideTheLock(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	c := New(cluster.Config{}, Options{Interval: time.Second,
		Warn: func(error) { close(entered); <-release }})
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.record(nil, 0, gatherStats{}, errors.New("dial tcp: connection refused"))
	}()
	<-entered
	served := make(chan bool)
	go func() { served <- c.Healthy() }() // takes the lock, as WriteText does
	select {
	case healthy := <-served:
		if healthy {
			t.Error("healthy after a failed gather")
		}
	case <-time.After(5 * time.Second):
		t.Error("the collector's lock is held while Warn blocks")
	}
	close(release)
	<-done
}
