package semantics

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// SessionLimits is the session timeout range one broker accepts from a
// group member (group.min.session.timeout.ms, group.max.session.timeout.ms).
type SessionLimits struct {
	Broker   int32
	Min, Max time.Duration
}

// CheckSessionTimeout checks d against the limits of every broker (any of
// them may coordinate a group): it must be within all of them. No limits
// (the brokers' configs could not be read) pass; the brokers still check.
func CheckSessionTimeout(d time.Duration, limits []SessionLimits) error {
	if len(limits) == 0 {
		return nil
	}
	lo, hi := limits[0], limits[0]
	for _, l := range limits[1:] {
		if l.Min > lo.Min {
			lo = l
		}
		if l.Max < hi.Max {
			hi = l
		}
	}
	if d >= lo.Min && d <= hi.Max {
		return nil
	}
	where := fmt.Sprintf("group.min.session.timeout.ms=%d on broker %d, group.max.session.timeout.ms=%d on broker %d", lo.Min.Milliseconds(), lo.Broker, hi.Max.Milliseconds(), hi.Broker)
	if lo.Broker == hi.Broker {
		where = fmt.Sprintf("group.min.session.timeout.ms=%d, group.max.session.timeout.ms=%d on broker %d", lo.Min.Milliseconds(), hi.Max.Milliseconds(), lo.Broker)
	}
	if lo.Min > hi.Max {
		return fmt.Errorf("--session-timeout %s: the brokers accept no common session timeout (%s)", d, where)
	}
	return fmt.Errorf("--session-timeout must be between %s and %s on this cluster (%s), got %s", shortDuration(lo.Min), shortDuration(hi.Max), where, d)
}

// ParseSessionLimits reads the two configs out of DescribeConfigs
// results of brokers. A broker whose configs could not be read, or that
// lacks either key or has a malformed value, is left out.
func ParseSessionLimits(rcs kadm.ResourceConfigs) []SessionLimits {
	var out []SessionLimits
	for _, rc := range rcs {
		if rc.Err != nil {
			continue
		}
		id, err := strconv.ParseInt(rc.Name, 10, 32)
		if err != nil {
			continue
		}
		var minMs, maxMs int64 = -1, -1
		for _, c := range rc.Configs {
			if c.Value == nil {
				continue
			}
			v, err := strconv.ParseInt(*c.Value, 10, 64)
			if err != nil || v < 0 {
				continue
			}
			switch c.Key {
			case "group.min.session.timeout.ms":
				minMs = v
			case "group.max.session.timeout.ms":
				maxMs = v
			}
		}
		if minMs < 0 || maxMs < 0 {
			continue
		}
		out = append(out, SessionLimits{Broker: int32(id), Min: millis(minMs), Max: millis(maxMs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Broker < out[j].Broker })
	return out
}

// millis converts a config's milliseconds, saturating where a Duration
// would overflow.
func millis(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// brokerSessionLimits asks every broker for its session timeout range.
// An error (e.g. no DESCRIBE_CONFIGS permission on the cluster) means the
// range is unknown.
func brokerSessionLimits(ctx context.Context, adm *cluster.Admin) ([]SessionLimits, error) {
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return nil, err
	}
	ids := brokers.NodeIDs()
	if len(ids) == 0 {
		return nil, fmt.Errorf("no brokers in the metadata")
	}
	// A broker that does not answer leaves the others' limits usable.
	rcs, err := adm.DescribeBrokerConfigs(ctx, ids...)
	limits := ParseSessionLimits(rcs)
	if len(limits) == 0 && err != nil {
		return nil, err
	}
	return limits, nil
}
