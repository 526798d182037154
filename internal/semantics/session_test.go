package semantics

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

func brokerConfig(name string, kv ...string) kadm.ResourceConfig {
	rc := kadm.ResourceConfig{Name: name}
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		rc.Configs = append(rc.Configs, kadm.Config{Key: kv[i], Value: &v})
	}
	return rc
}

func TestParseSessionLimits(t *testing.T) {
	const mn, mx = "group.min.session.timeout.ms", "group.max.session.timeout.ms"
	got := ParseSessionLimits(kadm.ResourceConfigs{
		brokerConfig("3", mn, "6000", mx, "1800000", "log.retention.ms", "1"),
		brokerConfig("1", mx, "300000", mn, "6000"),
		brokerConfig("2", mn, "6000"),                // no max: left out
		brokerConfig("4", mn, "x", mx, "1"),          // malformed: left out
		brokerConfig("5", mn, "-1", mx, "1"),         // negative: left out
		brokerConfig("controller", mn, "1", mx, "2"), // not a broker id
		{Name: "6", Err: errors.New("authorization failed")},
	})
	want := []SessionLimits{
		{Broker: 1, Min: 6 * time.Second, Max: 5 * time.Minute},
		{Broker: 3, Min: 6 * time.Second, Max: 30 * time.Minute},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("limits = %+v, want %+v", got, want)
	}
	if got := ParseSessionLimits(nil); got != nil {
		t.Fatalf("no configs = %+v", got)
	}
}

func TestCheckSessionTimeout(t *testing.T) {
	apache := []SessionLimits{{Broker: 1, Min: 6 * time.Second, Max: 30 * time.Minute}}
	mixed := []SessionLimits{
		{Broker: 1, Min: 6 * time.Second, Max: 30 * time.Minute},
		{Broker: 2, Min: 3 * time.Second, Max: 5 * time.Minute},
		{Broker: 3, Min: 8 * time.Second, Max: 10 * time.Minute},
	}
	for _, tc := range []struct {
		d      time.Duration
		limits []SessionLimits
		want   string // "" = accepted
	}{
		{10 * time.Second, apache, ""},
		{6 * time.Second, apache, ""},
		{30 * time.Minute, apache, ""},
		{2 * time.Second, nil, ""}, // unknown range: the brokers check
		{2 * time.Second, apache, "--session-timeout must be between 6s and 30m on this cluster (group.min.session.timeout.ms=6000, group.max.session.timeout.ms=1800000 on broker 1), got 2s"},
		{31 * time.Minute, apache, "between 6s and 30m on this cluster"},
		// Any broker may coordinate a group: the intersection counts,
		// and the message names the brokers that set each bound.
		{8 * time.Second, mixed, ""},
		{5 * time.Minute, mixed, ""},
		{7 * time.Second, mixed, "between 8s and 5m on this cluster (group.min.session.timeout.ms=8000 on broker 3, group.max.session.timeout.ms=300000 on broker 2), got 7s"},
		{6 * time.Minute, mixed, "between 8s and 5m"},
		{10 * time.Second, []SessionLimits{{1, 20 * time.Second, time.Minute}, {2, time.Second, 15 * time.Second}}, "accept no common session timeout"},
	} {
		err := CheckSessionTimeout(tc.d, tc.limits)
		if tc.want == "" {
			if err != nil {
				t.Errorf("CheckSessionTimeout(%s, %+v) = %v", tc.d, tc.limits, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckSessionTimeout(%s, %+v) = %v, want %q", tc.d, tc.limits, err, tc.want)
		}
	}
}

func FuzzParseSessionLimits(f *testing.F) {
	f.Add("1", "6000", "1800000", int64(10_000))
	f.Add("x", "", "-5", int64(0))
	f.Add("2147483648", "9223372036854775807", "1", int64(-1))
	f.Fuzz(func(t *testing.T, id, minV, maxV string, ms int64) {
		limits := ParseSessionLimits(kadm.ResourceConfigs{brokerConfig(id, "group.min.session.timeout.ms", minV, "group.max.session.timeout.ms", maxV)})
		for _, l := range limits {
			if l.Min < 0 || l.Max < 0 {
				t.Fatalf("negative limits from %q, %q: %+v", minV, maxV, l)
			}
		}
		d := time.Duration(ms) * time.Millisecond
		err := CheckSessionTimeout(d, limits)
		if len(limits) == 1 {
			in := d >= limits[0].Min && d <= limits[0].Max
			if in != (err == nil) {
				t.Fatalf("CheckSessionTimeout(%s, %+v) = %v", d, limits, err)
			}
		}
	})
}
