// Package semantics runs the commit-semantics crash experiment (60 events,
// batches of 10, a crash after the 25th, by default): a scratch topic of numbered events, and for each commit
// strategy a consumer that really crashes (a child process that exits
// without committing or closing its client) right after processing the Nth
// event, then a fresh consumer of the same group that runs to the end. A
// processed log per strategy shows what was processed twice and what never
// was; a group-less replay from offset 0 ends the experiment and proves it
// moved no group's committed offsets.
//
// It is split like the rest of offsetctl: options, the event layout, the
// processed-log parser and the per-row explanation are pure (plan.go,
// processedlog.go); the worker (worker.go) and the orchestration (run.go)
// do the I/O.
package semantics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offsetctl/offsetctl/internal/topicname"
)

// Mode is a commit strategy.
type Mode string

// The commit strategies.
const (
	// AtMostOnce commits each polled batch, then processes it.
	AtMostOnce Mode = "at-most-once"
	// AtLeastOnce processes each batch, then commits it.
	AtLeastOnce Mode = "at-least-once"
	// Auto is franz-go's default auto-commit: every commit interval a
	// background commit of what earlier polls returned.
	Auto Mode = "auto"
	// AutoGreedy is franz-go's GreedyAutoCommit: the background commit
	// also covers what the latest poll returned, processed or not (the
	// auto-commit as it is commonly described).
	AutoGreedy Mode = "auto-greedy"
	// Sync disables auto-commit and calls CommitRecords on the whole batch
	// after processing it.
	Sync Mode = "sync"
	// Async uses AutoCommitMarks: MarkCommitRecords after each record,
	// CommitMarkedOffsets after each batch, background flush every commit
	// interval.
	Async Mode = "async"
)

// DefaultModes is what --modes all (and no --modes) runs, in table order.
var DefaultModes = []Mode{AtMostOnce, AtLeastOnce, Auto, Sync, Async}

// AllModes lists every mode, including the opt-in auto-greedy.
var AllModes = []Mode{AtMostOnce, AtLeastOnce, Auto, AutoGreedy, Sync, Async}

// The defaults of the experiment: 60 events, batches of 10, a crash after
// the 25th: at-most-once gives 55/55/0/5, at-least-once 65/60/5/0.
const (
	DefaultEvents         = 60
	DefaultPartitions     = 3
	DefaultBatch          = 10
	DefaultCrashAfter     = 25
	DefaultCommitInterval = 2 * time.Second
	// DefaultSessionTimeout is the workers' group session timeout: the
	// broker-side minimum of Apache Kafka (group.min.session.timeout.ms
	// defaults to 6s) plus a margin.
	DefaultSessionTimeout = 10 * time.Second
	// DefaultTopicPrefix starts the scratch topic's name.
	DefaultTopicPrefix = "offsetctl-semantics"
)

// Options is one experiment.
type Options struct {
	Events     int
	Partitions int
	Batch      int
	// CrashAfter is the number of events the first consumer of each mode
	// processes before it crashes.
	CrashAfter int
	Modes      []Mode
	// WorkDelay is the time the worker spends on each record before it
	// counts as processed (the classic experiment's WORK_DELAY).
	WorkDelay time.Duration
	// CommitInterval is the auto-commit / background-flush interval of
	// auto, auto-greedy and async.
	CommitInterval time.Duration
	// SessionTimeout is the workers' group session timeout.
	SessionTimeout time.Duration

	// Keep leaves the scratch topic, the groups and the processed logs in
	// place.
	Keep bool
	// LogDir is where the processed logs go ("": a temporary directory,
	// removed afterwards unless Keep).
	LogDir string
	// TopicPrefix starts the scratch topic's name: the topic is the
	// prefix, "-" and 8 random hex digits, its groups the topic, "-" and
	// the mode (default "offsetctl-semantics").
	TopicPrefix string
	// Topic, when set, is the exact name of the scratch topic (it must
	// not exist yet) instead of TopicPrefix and a random suffix. The demo
	// uses it to run the experiment on "orders".
	Topic string
	// Sequential runs the modes one after another instead of at once.
	Sequential bool
	// NoReplay skips the final replay.
	NoReplay bool

	// Launcher starts a worker process. Required.
	Launcher Launcher
	// Progress, when set, receives one line per step (for stderr).
	Progress func(string)
}

// WithDefaults fills the zero fields with the defaults. It is for Go
// callers that set only a few fields (the demo); the command line never
// passes a value the user typed through it: offsetctl semantics validates
// its flags as typed (Validate without WithDefaults), so --events 0 is an
// error, not the default.
func (o Options) WithDefaults() Options {
	if o.Events == 0 {
		o.Events = DefaultEvents
	}
	if o.Partitions == 0 {
		o.Partitions = DefaultPartitions
	}
	if o.Batch == 0 {
		o.Batch = DefaultBatch
	}
	if o.CrashAfter == 0 {
		o.CrashAfter = DefaultCrashAfter
	}
	if len(o.Modes) == 0 {
		o.Modes = append([]Mode(nil), DefaultModes...)
	}
	if o.CommitInterval == 0 {
		o.CommitInterval = DefaultCommitInterval
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.TopicPrefix == "" {
		o.TopicPrefix = DefaultTopicPrefix
	}
	return o
}

// Limits of the options (inclusive).
const (
	// MinEvents: the crash must come after at least one event and before
	// the last one.
	MinEvents     = 2
	MaxEvents     = 1_000_000
	MaxPartitions = 1000
	// MaxBatches bounds --events / --batch: every batch of at-most-once,
	// at-least-once and sync is a synchronous commit (about 0.3 ms on a
	// local broker, several on a remote one), so 1,000,000 batches of one
	// would take most of an hour per mode.
	MaxBatches = 100_000
	// MinCommitInterval is franz-go's floor for AutoCommitInterval (the
	// client refuses less, so the auto modes' workers could not start);
	// async uses the same interval for its background flush.
	MinCommitInterval = 100 * time.Millisecond
	// MinSessionTimeout and MaxSessionTimeout frame --session-timeout
	// before the brokers are asked (Apache Kafka allows 6s to 30m by
	// default: group.min/max.session.timeout.ms).
	MinSessionTimeout = time.Second
	MaxSessionTimeout = 30 * time.Minute
	// MaxWorkTime bounds the time the workers of one run spend in
	// --work-delay: (events + crash-after) records per mode at most,
	// times the number of modes with --sequential.
	MaxWorkTime = 15 * time.Minute
)

// Validate checks options as they are: it fills no default, so a zero
// that is not allowed (--events 0) is an error naming the flag and the
// valid range. Call it on the flags as typed, or after WithDefaults.
func (o Options) Validate() error {
	switch {
	case o.Events < MinEvents || o.Events > MaxEvents:
		return fmt.Errorf("--events must be between %d and %d, got %d", MinEvents, MaxEvents, o.Events)
	case o.Partitions < 1 || o.Partitions > MaxPartitions:
		return fmt.Errorf("--partitions must be between 1 and %d, got %d", MaxPartitions, o.Partitions)
	case o.Batch < 1 || o.Batch > MaxEvents:
		// A batch larger than the topic is one batch of all events.
		return fmt.Errorf("--batch must be between 1 and %d, got %d", MaxEvents, o.Batch)
	case batches(o.Events, o.Batch) > MaxBatches:
		return fmt.Errorf("--batch must be at least %d with --events %d (at most %d batches, each a synchronous commit), got %d", minBatch(o.Events), o.Events, MaxBatches, o.Batch)
	case o.CrashAfter < 1 || o.CrashAfter >= o.Events:
		return fmt.Errorf("--crash-after must be between 1 and --events - 1 (%d), got %d", o.Events-1, o.CrashAfter)
	case o.WorkDelay < 0:
		return fmt.Errorf("--work-delay must be at least 0s, got %s", o.WorkDelay)
	case o.WorkDelay > o.maxWorkDelay():
		return fmt.Errorf("--work-delay must be between 0s and %s with %s, got %s: up to %d records go through it, %s in all, and a run may spend at most %s in work delays",
			o.maxWorkDelay(), o.workContext(), o.WorkDelay, o.workRecords(), workTime(o.WorkDelay, o.workRecords()), shortDuration(MaxWorkTime))
	case o.CommitInterval < MinCommitInterval:
		return fmt.Errorf("--commit-interval must be at least %s, got %s", MinCommitInterval, o.CommitInterval)
	case o.SessionTimeout < MinSessionTimeout || o.SessionTimeout > MaxSessionTimeout:
		return fmt.Errorf("--session-timeout must be between %s and %s, got %s", MinSessionTimeout, shortDuration(MaxSessionTimeout), o.SessionTimeout)
	case len(o.Modes) == 0:
		return fmt.Errorf("--modes: no mode given (want %s or all)", modeNames(AllModes))
	}
	if o.Topic != "" {
		if err := CheckTopicName(o.Topic); err != nil {
			return fmt.Errorf("scratch topic: %w", err)
		}
	} else if err := CheckTopicPrefix(o.TopicPrefix); err != nil {
		return err
	}
	seen := map[Mode]bool{}
	for _, m := range o.Modes {
		if !m.Valid() {
			return fmt.Errorf("--modes: unknown mode %q (want %s or all)", m, modeNames(AllModes))
		}
		if seen[m] {
			return fmt.Errorf("--modes: %s given twice", m)
		}
		seen[m] = true
	}
	return nil
}

func batches(events, batch int) int { return (events + batch - 1) / batch }

// minBatch is the smallest --batch that keeps events within MaxBatches.
func minBatch(events int) int { return (events + MaxBatches - 1) / MaxBatches }

// workRecords is the most records that go through --work-delay in one
// run: each mode's first worker processes CrashAfter records and its
// restart at most Events; with Sequential the modes add up (at once they
// overlap).
func (o Options) workRecords() int64 {
	return int64(o.Events+o.CrashAfter) * int64(o.workRuns())
}

func (o Options) workRuns() int {
	if o.Sequential && len(o.Modes) > 0 {
		return len(o.Modes)
	}
	return 1
}

// workContext names the options the work-delay limit depends on.
func (o Options) workContext() string {
	if o.workRuns() > 1 {
		return fmt.Sprintf("--events %d, --crash-after %d and --sequential (%d modes)", o.Events, o.CrashAfter, o.workRuns())
	}
	return fmt.Sprintf("--events %d and --crash-after %d", o.Events, o.CrashAfter)
}

// maxWorkDelay is the largest --work-delay within MaxWorkTime.
func (o Options) maxWorkDelay() time.Duration {
	n := o.workRecords()
	if n <= 0 {
		return MaxWorkTime
	}
	d := MaxWorkTime / time.Duration(n)
	if d >= time.Millisecond {
		return d.Truncate(time.Millisecond)
	}
	return d.Truncate(time.Microsecond)
}

// workTime is d × n, saturating instead of overflowing.
func workTime(d time.Duration, n int64) string {
	if n > 0 && d > math.MaxInt64/time.Duration(n) {
		return "over 290 years"
	}
	return shortDuration(d * time.Duration(n))
}

// shortDuration prints 30m instead of 30m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// maxTopicLen is Kafka's longest topic name.
const maxTopicLen = topicname.MaxLen

// suffixLen is what Run appends to the prefix: "-" and 8 hex digits.
const suffixLen = 9

// MaxTopicPrefixLen leaves room for the random suffix in a topic name.
const MaxTopicPrefixLen = maxTopicLen - suffixLen

// CheckTopicName checks a complete topic name against Kafka's rules
// (topicname.Check), worded for --topic.
func CheckTopicName(name string) error {
	var e *topicname.Error
	if !errors.As(topicname.Check(name), &e) {
		return nil
	}
	switch e.Problem {
	case topicname.Empty:
		return fmt.Errorf("topic name must not be empty")
	case topicname.Dots:
		return fmt.Errorf("topic name %q is not allowed by Kafka", name)
	case topicname.IllegalChar:
		return fmt.Errorf("topic name %q: %q is not allowed in a Kafka topic name (only a-z, A-Z, 0-9, '.', '_' and '-')", name, e.Char)
	}
	return fmt.Errorf("topic name is %d characters, Kafka allows at most %d", len(name), maxTopicLen)
}

// CheckTopicPrefix checks --topic-prefix: the scratch topic is the prefix,
// "-" and 8 random hex digits, and its groups are the topic, "-" and the
// mode, so a prefix that passes makes legal names that all start with it.
func CheckTopicPrefix(prefix string) error {
	switch {
	case prefix == "":
		return fmt.Errorf("--topic-prefix must not be empty (it starts the scratch topic's name; default %s)", DefaultTopicPrefix)
	}
	if i := topicname.IllegalIndex(prefix); i >= 0 {
		r, _ := utf8.DecodeRuneInString(prefix[i:])
		return fmt.Errorf("--topic-prefix %q: %q is not allowed in a Kafka topic name (only a-z, A-Z, 0-9, '.', '_' and '-')", prefix, r)
	}
	if len(prefix) > MaxTopicPrefixLen {
		return fmt.Errorf("--topic-prefix must be at most %d characters (Kafka topic names are at most %d and the random suffix takes %d), got %d", MaxTopicPrefixLen, maxTopicLen, suffixLen, len(prefix))
	}
	return nil
}

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool {
	for _, k := range AllModes {
		if m == k {
			return true
		}
	}
	return false
}

// ParseModes parses --modes: a comma-separated list of distinct modes, or
// "all" (the five default modes; auto-greedy is opt-in). Names are
// case-insensitive and may be padded with spaces; an empty value or an
// empty item (",sync", "sync,,async") is an error, never "all".
func ParseModes(s string) ([]Mode, error) {
	want := fmt.Sprintf("want a comma-separated list of %s, or all", modeNames(AllModes))
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("must name at least one mode (%s)", want)
	}
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return append([]Mode(nil), DefaultModes...), nil
	}
	var out []Mode
	for i, part := range strings.Split(s, ",") {
		m := Mode(strings.ToLower(strings.TrimSpace(part)))
		switch {
		case m == "":
			return nil, fmt.Errorf("item %d is empty (%s)", i+1, want)
		case m == "all":
			return nil, errors.New("all cannot be combined with other modes")
		case !m.Valid():
			// Neither the value nor the item is echoed (a pasted
			// secret, a terminal escape): its place says which.
			return nil, fmt.Errorf("item %d is not a mode (%s)", i+1, want)
		case slices.Contains(out, m):
			return nil, fmt.Errorf("%s given twice", m)
		}
		out = append(out, m)
	}
	return out, nil
}

func modeNames(ms []Mode) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Describe says in a few words how mode m commits.
func (m Mode) Describe(interval time.Duration) string {
	switch m {
	case AtMostOnce:
		return "commits each polled batch, then processes it"
	case AtLeastOnce:
		return "processes each batch, then commits it"
	case Auto:
		return fmt.Sprintf("auto-commit (franz-go's default) every %s commits what earlier polls returned", interval)
	case AutoGreedy:
		return fmt.Sprintf("greedy auto-commit every %s commits everything polled, processed or not", interval)
	case Sync:
		return "commits the whole batch with CommitRecords after processing it"
	case Async:
		return fmt.Sprintf("marks each processed record, flushes the marks after each batch and every %s", interval)
	}
	return string(m)
}
