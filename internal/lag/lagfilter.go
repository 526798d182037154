package lag

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// LagFilter keeps the rows an operator asked to see (`lag --min-lag`,
// `--min-time-lag`). Apply is pure.
type LagFilter struct {
	// MinLag keeps rows whose lag is known and at least MinLag.
	MinLag *int64
	// MinTimeLag keeps rows whose time lag is known and at least this.
	MinTimeLag *time.Duration
}

// Active reports whether the filter drops anything.
func (f LagFilter) Active() bool { return f.MinLag != nil || f.MinTimeLag != nil }

// Keep reports whether row p passes the filter.
func (f LagFilter) Keep(p PartitionLag) bool {
	if f.MinLag != nil && (p.Lag == nil || *p.Lag < *f.MinLag) {
		return false
	}
	if f.MinTimeLag != nil && (p.TimeLagMs == nil || *p.TimeLagMs < f.MinTimeLag.Milliseconds()) {
		return false
	}
	return true
}

// String says what a row must have to pass: "lag ≥ 100", "time lag ≥
// 5m0s", or both joined by "and"; empty when the filter is not active.
func (f LagFilter) String() string {
	var parts []string
	if f.MinLag != nil {
		parts = append(parts, fmt.Sprintf("lag ≥ %d", *f.MinLag))
	}
	if f.MinTimeLag != nil {
		parts = append(parts, fmt.Sprintf("time lag ≥ %s", *f.MinTimeLag))
	}
	return strings.Join(parts, " and ")
}

// Apply keeps the rows that pass and the groups that keep a row; a group
// that could not be read stays, so its error is never filtered away. The
// groups left out are added to FilteredOut. TotalLag is left as gathered:
// the group's whole lag, not the shown rows'.
func (f LagFilter) Apply(r LagReport) LagReport {
	if !f.Active() {
		return r
	}
	out := r
	out.Groups = []GroupLag{}
	out.FilteredOut = slices.Clip(r.FilteredOut)
	for _, g := range r.Groups {
		rows := make([]PartitionLag, 0, len(g.Partitions))
		for _, p := range g.Partitions {
			if p.Error != "" || f.Keep(p) {
				rows = append(rows, p)
			}
		}
		if len(rows) == 0 && g.Error == "" {
			out.FilteredOut = append(out.FilteredOut, g.Group)
			continue
		}
		g.Partitions = rows
		out.Groups = append(out.Groups, g)
	}
	return out
}

// ParseMinLag reads --min-lag: a count of records, 1e6 notation allowed.
func ParseMinLag(s string) (int64, error) {
	n, err := parseCount(s)
	if err != nil {
		return 0, fmt.Errorf("%s %w", safetext.Arg(s), err)
	}
	return n, nil
}

// parseCount reads a non-negative whole number of records: "10000",
// "1e6", "2.5e3". Fractions and negatives are errors.
func parseCount(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("is empty: want a number of records such as 10000 or 1e6")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, errors.New("is negative")
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("is not a number of records (such as 10000 or 1e6)")
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return 0, errors.New("is not a whole, non-negative number of records")
	}
	return int64(f), nil
}

// Threshold is one `--fail-if` expression: METRIC>VALUE or METRIC>=VALUE.
type Threshold struct {
	Expr   string // as given, for messages (shortened)
	Metric string // lag, total-lag or time-lag
	OrEq   bool   // >= rather than >
	Count  int64  // for lag and total-lag
	Time   time.Duration
}

// thresholdMetrics names the metrics --fail-if knows, for its errors:
// status>=S is read by the command (it needs the group statuses), these
// three here.
const thresholdMetrics = "lag, total-lag, time-lag or status"

// ParseThreshold reads a --fail-if expression: lag>10000, total-lag>=1e6,
// time-lag>5m. Errors name the expression shortened, never whole.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Expr: safetext.Arg(strings.TrimSpace(s))}
	i := strings.IndexAny(s, "><=")
	if i < 0 {
		return t, fmt.Errorf("%s: want METRIC>VALUE with METRIC one of %s (e.g. lag>10000, total-lag>1e6, time-lag>5m, status>=STOP)", t.Expr, thresholdMetrics)
	}
	t.Metric = strings.ToLower(strings.TrimSpace(s[:i]))
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, ">="):
		t.OrEq, rest = true, rest[2:]
	case strings.HasPrefix(rest, ">"):
		rest = rest[1:]
	default:
		return t, fmt.Errorf("%s: the comparison must be > or >=", t.Expr)
	}
	if t.Metric != "lag" && t.Metric != "total-lag" && t.Metric != "time-lag" {
		return t, fmt.Errorf("%s: unknown metric %s (want %s)", t.Expr, safetext.Arg(t.Metric), thresholdMetrics)
	}
	rest = strings.TrimSpace(rest)
	var err error
	if t.Metric == "time-lag" {
		t.Time, err = time.ParseDuration(rest)
		if err != nil || t.Time < 0 {
			return t, fmt.Errorf("%s: time-lag takes a duration such as 90s, 5m or 1h", t.Expr)
		}
		return t, nil
	}
	if t.Count, err = parseCount(rest); err != nil {
		return t, fmt.Errorf("%s: the value %w", t.Expr, err)
	}
	return t, nil
}

func (t Threshold) crossed(v int64) bool {
	limit := t.Count
	if t.Metric == "time-lag" {
		limit = t.Time.Milliseconds()
	}
	return v > limit || (t.OrEq && v == limit)
}

// NeedsTimeLag reports whether the threshold reads time lag.
func (t Threshold) NeedsTimeLag() bool { return t.Metric == "time-lag" }

// Breaches lists what crosses any of the thresholds, one line each naming
// the group (and the topic and partition for row metrics) and the value.
func Breaches(r LagReport, ts []Threshold) []string {
	var out []string
	for _, t := range ts {
		for _, g := range r.Groups {
			if g.Error != "" {
				continue
			}
			if t.Metric == "total-lag" {
				if t.crossed(g.TotalLag) {
					out = append(out, fmt.Sprintf("group %s total-lag %d (%s)", safetext.Arg(g.Group), g.TotalLag, t.Expr))
				}
				continue
			}
			for _, p := range g.Partitions {
				switch {
				case p.Error != "":
				case t.Metric == "lag" && p.Lag != nil && t.crossed(*p.Lag):
					out = append(out, fmt.Sprintf("group %s topic %s partition %d lag %d (%s)", safetext.Arg(g.Group), safetext.Name(p.Topic), p.Partition, *p.Lag, t.Expr))
				case t.Metric == "time-lag" && p.TimeLagMs != nil && t.crossed(*p.TimeLagMs):
					out = append(out, fmt.Sprintf("group %s topic %s partition %d time-lag %s (%s)", safetext.Arg(g.Group), safetext.Name(p.Topic), p.Partition, time.Duration(*p.TimeLagMs)*time.Millisecond, t.Expr))
				}
			}
		}
	}
	return out
}

// Roll-ups (`lag --by topic|group`).

// LagBy is how a lag report is rolled up.
type LagBy string

// The --by values.
const (
	ByPartition LagBy = "partition"
	ByTopic     LagBy = "topic"
	ByGroup     LagBy = "group"
)

// ParseLagBy reads --by.
func ParseLagBy(s string) (LagBy, error) {
	switch b := LagBy(strings.ToLower(strings.TrimSpace(s))); b {
	case ByPartition, ByTopic, ByGroup:
		return b, nil
	}
	return "", errors.New("want partition, topic or group")
}

// TopicLag is one topic of one group, rolled up from its rows.
type TopicLag struct {
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	// Lag adds the known lags; MaxLag is the largest (nil when none is
	// known: every row never committed, or failed).
	Lag          int64  `json:"lag"`
	MaxLag       *int64 `json:"max_lag"`
	MaxTimeLagMs *int64 `json:"max_time_lag_ms,omitempty"`
	// Errors counts the rows that could not be read.
	Errors int `json:"errors,omitempty"`
}

// GroupTopics is one group of a `--by topic` report.
type GroupTopics struct {
	Group    string     `json:"group"`
	Type     string     `json:"type"`
	State    string     `json:"state"`
	Members  int        `json:"members"`
	TotalLag *int64     `json:"total_lag"` // nil when not known (GroupLag.TotalLagKnown)
	Note     string     `json:"note,omitempty"`
	Error    string     `json:"error,omitempty"`
	Topics   []TopicLag `json:"topics"`
}

// TopicReport is a lag report rolled up per topic.
type TopicReport struct {
	// Time is the round's time in a --watch stream, empty otherwise.
	Time      string        `json:"time,omitempty"`
	Isolation string        `json:"isolation"`
	TimeLag   bool          `json:"-"`
	Groups    []GroupTopics `json:"groups"`
}

// ByTopics rolls each group's rows up per topic, topics in row order.
func ByTopics(r LagReport) TopicReport {
	out := TopicReport{Isolation: r.Isolation, TimeLag: r.TimeLag, Groups: make([]GroupTopics, 0, len(r.Groups))}
	for _, g := range r.Groups {
		gt := GroupTopics{Group: g.Group, Type: g.Type, State: g.State, Members: g.Members, TotalLag: g.OptTotalLag(), Note: g.Note, Error: g.Error, Topics: []TopicLag{}}
		idx := map[string]int{}
		for _, p := range g.Partitions {
			i, ok := idx[p.Topic]
			if !ok {
				i = len(gt.Topics)
				idx[p.Topic] = i
				gt.Topics = append(gt.Topics, TopicLag{Topic: p.Topic})
			}
			addRow(&gt.Topics[i], p)
		}
		out.Groups = append(out.Groups, gt)
	}
	return out
}

func addRow(t *TopicLag, p PartitionLag) {
	t.Partitions++
	if p.Error != "" {
		t.Errors++
		return
	}
	if p.Lag != nil {
		t.Lag += *p.Lag
		if t.MaxLag == nil || *p.Lag > *t.MaxLag {
			t.MaxLag = new(*p.Lag)
		}
	}
	if p.TimeLagMs != nil && (t.MaxTimeLagMs == nil || *p.TimeLagMs > *t.MaxTimeLagMs) {
		t.MaxTimeLagMs = new(*p.TimeLagMs)
	}
}

// GroupsReport is a lag report rolled up per group (`lag --by group`): the
// rows of `groups`.
type GroupsReport struct {
	// Time is the round's time in a --watch stream, empty otherwise.
	Time   string         `json:"time,omitempty"`
	Groups []GroupSummary `json:"groups"`
}
