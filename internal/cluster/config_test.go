package cluster

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestParseBrokers(t *testing.T) {
	cases := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"localhost:9092", []string{"localhost:9092"}, false},
		{" a:1 , b:2,,", []string{"a:1", "b:2"}, false},
		{"[::1]:9092", []string{"[::1]:9092"}, false},
		{"PLAINTEXT://a:1,plaintext://b:2", []string{"a:1", "b:2"}, false},
		// Two listeners in one list cannot both be what the settings say.
		{"PLAINTEXT://a:1,SASL_SSL://b:2", nil, true},
		// A sign or a leading zero is not how a port is written.
		{"h:+40100", nil, true},
		{"h:040100", nil, true},
		{"h:09092", nil, true},
		{"", nil, true},
		{" , ", nil, true},
		{"nocolon", nil, true},
		{"a:1,nocolon", nil, true},
		{"localhost:", nil, true},
		{":9092", nil, true},
		{"h:0", nil, true},
		{"h:65536", nil, true},
		{"h:http", nil, true},
	}
	for _, c := range cases {
		got, err := ParseBrokers(c.in)
		if (err != nil) != c.wantErr || !c.wantErr && !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseBrokers(%q) = %v, %v", c.in, got, err)
		}
	}
}

func FuzzParseBrokers(f *testing.F) {
	for _, s := range []string{"a:1", "a:1,b:2", "[::1]:9092", ",", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bs, err := ParseBrokers(s)
		if err == nil && len(bs) == 0 {
			t.Fatal("no error and no brokers")
		}
	})
}

// TestUnreachableSaysInterrupted: a canceled context is the user's
// interruption, not a silent cluster; a deadline is the cluster's silence;
// anything else is a failure to reach it.
func TestUnreachableSaysInterrupted(t *testing.T) {
	c := Config{Brokers: []string{"b1:9092", "b2:9092"}, Timeout: 5 * time.Second}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "interrupted"},
		{fmt.Errorf("staging offsets: %w", context.Canceled), "interrupted"},
		{context.DeadlineExceeded, "cluster at b1:9092,b2:9092 did not answer within 5s"},
		{errors.New("dial tcp: connection refused"), "cannot reach cluster at b1:9092,b2:9092: dial tcp: connection refused"},
	} {
		got := c.Unreachable(tc.err)
		if got.Error() != tc.want {
			t.Errorf("Unreachable(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if errors.Is(tc.err, context.Canceled) && !errors.Is(got, context.Canceled) {
			t.Errorf("Unreachable(%v) does not wrap the cancellation", tc.err)
		}
	}
}
