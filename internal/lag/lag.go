package lag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// PartitionLag is one group-partition row of a lag report. LogStart and
// LogEnd are -1 when unknown (Error says why).
type PartitionLag struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	LogStart  int64  `json:"log_start"`
	Committed *int64 `json:"committed"`
	LogEnd    int64  `json:"log_end"`
	// Lag is nil when unknown: an error, or no committed offset and no
	// --assume-reset (what the consumer reads then depends on its
	// auto.offset.reset, as Apache's tool shows "-" there).
	Lag       *int64 `json:"lag"`
	TimeLagMs *int64 `json:"time_lag_ms,omitempty"`
	Member    string `json:"member"`
	ClientID  string `json:"client_id"`
	Host      string `json:"host"`
	Note      string `json:"note"`
	Error     string `json:"error"`
	// Status and StatusReason are the partition's health (lag --status):
	// OK, WARN, REWIND, STALL or STOP, and why.
	Status       string `json:"status,omitempty"`
	StatusReason string `json:"status_reason,omitempty"`
}

// GroupLag is one group of a lag report.
type GroupLag struct {
	Group   string   `json:"group"`
	Type    string   `json:"type"`
	State   string   `json:"state"`
	Members int      `json:"members"`
	Topics  []string `json:"topics"`
	// TotalLag sums the known lags only, as kafka-consumer-groups does:
	// a partition without a commit adds nothing unless --assume-reset.
	TotalLag   int64          `json:"total_lag"`
	Note       string         `json:"note,omitempty"`
	Error      string         `json:"error,omitempty"`
	Partitions []PartitionLag `json:"partitions"`
	// Progress is set by `lag --watch` from its second round on.
	Progress *Progress `json:"progress,omitempty"`
	// ProtocolType is a classic group's ("consumer", or "connect" for a
	// Kafka Connect worker group); Assignor and Coordinator are what
	// `lag --state` shows (Coordinator nil when the group was not described).
	ProtocolType string `json:"protocol_type,omitempty"`
	Assignor     string `json:"assignor,omitempty"`
	Coordinator  *int32 `json:"coordinator,omitempty"`
	// Status is the group's health, its worst partition's (lag --status),
	// StatusReason names the partitions that decided it, StatusSource
	// says where the commits came from: offsets-topic or sample.
	Status       string `json:"status,omitempty"`
	StatusReason string `json:"status_reason,omitempty"`
	StatusSource string `json:"status_source,omitempty"`
	// MemberList is one row per live member, idle ones included (`lag
	// --members`).
	MemberList []MemberRow `json:"-"`
}

// TotalLagKnown reports whether TotalLag says anything: not for a group
// that does not exist, whose commits could not be fetched, or whose every
// row failed (an error and no partition with a known lag). There
// TotalLag is 0 from summing nothing, and shown as 0 it would be a false
// low lag: the outputs show it as unknown (JSON null, CSV empty, "-").
// With some lags known it is their sum, as kafka-consumer-groups sums.
func (g GroupLag) TotalLagKnown() bool {
	failed := g.Error != ""
	for _, p := range g.Partitions {
		if p.Lag != nil && p.Error == "" {
			return true
		}
		failed = failed || p.Error != ""
	}
	return !failed
}

// groupLagFields is GroupLag without its MarshalJSON.
type groupLagFields GroupLag

// MarshalJSON encodes g with total_lag null when it is not known
// (TotalLagKnown): a 0 there would be a false low lag.
func (g GroupLag) MarshalJSON() ([]byte, error) { return g.EncodeJSON("", "") }

// EncodeJSON is MarshalJSON's encoding, compact or indented as
// json.MarshalIndent(g, prefix, indent) would write it: report's lag
// stream writes a large group's JSON once, not marshalled then
// re-indented.
func (g GroupLag) EncodeJSON(prefix, indent string) ([]byte, error) {
	var b []byte
	var err error
	if prefix == "" && indent == "" {
		b, err = json.Marshal(groupLagFields(g))
	} else {
		b, err = json.MarshalIndent(groupLagFields(g), prefix, indent)
	}
	if err != nil || g.TotalLagKnown() {
		return b, err
	}
	// The group's own key comes before its partitions, and a name or
	// topic holding the text has its quotes escaped: the first match is
	// the group's.
	for _, zero := range []string{`"total_lag": 0,`, `"total_lag":0,`} {
		if before, after, ok := bytes.Cut(b, []byte(zero)); ok {
			null := strings.Replace(zero, "0", "null", 1)
			return append(append(before[:len(before):len(before)], null...), after...), nil
		}
	}
	return b, nil
}

// OptTotalLag is TotalLag, nil when it is not known (TotalLagKnown).
func (g GroupLag) OptTotalLag() *int64 {
	if !g.TotalLagKnown() {
		return nil
	}
	return &g.TotalLag
}

// MemberRow is one member of a group as `lag --members` shows it.
type MemberRow struct {
	Group    string `json:"group"`
	MemberID string `json:"member_id"`
	// InstanceID is null for a member that is not static (no
	// group.instance.id), as Apache's tool prints it.
	InstanceID *string `json:"instance_id"`
	ClientID   string  `json:"client_id"`
	Host       string  `json:"host"`
	Partitions int     `json:"partitions"`
}

// IsConsumer reports whether a group keeps consumer offsets: a KIP-848
// group, or a classic group speaking the consumer protocol (or none yet).
func (g GroupInfo) IsConsumer() bool {
	return g.ProtocolType == "" || g.ProtocolType == "consumer"
}

// LagReport is the result of `lag`.
type LagReport struct {
	// Time is the round's time in a --watch stream (RFC 3339 UTC), empty
	// (left out of JSON) otherwise.
	Time      string `json:"time,omitempty"`
	Isolation string `json:"isolation"`
	// AssumeReset is the auto.offset.reset the lag of an uncommitted
	// partition was computed with ("earliest" or "latest"); empty when such
	// lags are unknown (null).
	AssumeReset string `json:"assume_reset,omitempty"`
	TimeLag     bool   `json:"-"`
	// Status says the groups carry lag --status's judgement (the table
	// and CSV add its columns).
	Status bool       `json:"-"`
	Groups []GroupLag `json:"groups"`
	// FilteredOut names the groups read whole that a LagFilter left out
	// (no row passed it): the table says why it is empty.
	FilteredOut []string `json:"-"`
}

// Errors lists every group and partition error in the report, one line
// each naming the group, topic and partition.
func (r LagReport) Errors() []string {
	var out []string
	for _, g := range r.Groups {
		if g.Error != "" {
			out = append(out, fmt.Sprintf("group %s: %s", safetext.Arg(g.Group), g.Error))
		}
		for _, p := range g.Partitions {
			if p.Error != "" {
				out = append(out, fmt.Sprintf("group %s topic %s partition %d: %s", safetext.Arg(g.Group), p.Topic, p.Partition, p.Error))
			}
		}
	}
	return out
}

// AssumeReset is what lag assumes a consumer does on a partition with no
// committed offset: nothing (lag unknown), or its auto.offset.reset.
type AssumeReset string

// The --assume-reset values.
const (
	AssumeNothing  AssumeReset = ""
	AssumeEarliest AssumeReset = "earliest"
	AssumeLatest   AssumeReset = "latest"
)

// ParseAssumeReset parses the value of --assume-reset (the caller names the
// flag).
func ParseAssumeReset(s string) (AssumeReset, error) {
	switch a := AssumeReset(strings.ToLower(strings.TrimSpace(s))); a {
	case AssumeEarliest, AssumeLatest:
		return a, nil
	}
	return "", errors.New("want earliest or latest")
}

// LagOptions are the choices ComputeLag leaves to the user.
type LagOptions struct {
	Scope       Scope
	AssumeReset AssumeReset
	// AllGroups: the groups are every group of the cluster, not named by
	// the user. A partition named in the scope (T:3) then gets a row only
	// in the groups that have something on its topic; in a named group it
	// always does.
	AllGroups bool
}

// ComputeLag turns a snapshot into a lag report: one row per committed or
// assigned partition in scope, sorted by group, topic, partition. An
// uncommitted partition's lag is unknown (nil).
func ComputeLag(s *Snapshot, scope Scope) LagReport {
	return ComputeLagWith(s, LagOptions{Scope: scope})
}

// ComputeLagWith is ComputeLag with every option.
func ComputeLagWith(s *Snapshot, o LagOptions) LagReport {
	rep := LagReport{Isolation: s.Isolation.String(), AssumeReset: string(o.AssumeReset), Groups: []GroupLag{}}
	groups := append([]GroupSnapshot(nil), s.Groups...)
	sort.Slice(groups, func(i, j int) bool { return groups[i].Group < groups[j].Group })
	for _, g := range groups {
		rep.Groups = append(rep.Groups, computeGroupLag(s, g, o))
	}
	return rep
}

func computeGroupLag(s *Snapshot, g GroupSnapshot, o LagOptions) GroupLag {
	gl := groupLagRows(s, g, o)
	noteNothingOnTopics(&gl, g, o)
	return gl
}

// groupLagRows is computeGroupLag without noteNothingOnTopics (which needs
// every row: groupLagFromRows adds its own first).
func groupLagRows(s *Snapshot, g GroupSnapshot, o LagOptions) GroupLag {
	gl := GroupLag{Group: g.Group, Type: g.Type, State: g.State, Members: len(g.Members), Partitions: []PartitionLag{}, Topics: []string{}, ProtocolType: g.ProtocolType, Assignor: g.Assignor}
	if g.Exists && g.Err == nil && g.Coordinator >= 0 {
		gl.Coordinator = new(g.Coordinator)
	}
	for _, m := range g.Members {
		n := 0
		for _, ps := range m.Assigned {
			n += len(ps)
		}
		gl.MemberList = append(gl.MemberList, MemberRow{Group: g.Group, MemberID: m.ID, InstanceID: m.InstanceID, ClientID: m.ClientID, Host: m.Host, Partitions: n})
	}
	switch {
	case g.Err != nil:
		gl.Error = fmt.Sprintf("describing group: %v", g.Err)
	case g.CommitErr != nil:
		gl.Error = fmt.Sprintf("fetching committed offsets: %v", g.CommitErr)
	case !g.Exists:
		gl.Error = "group does not exist"
		gl.State = "Dead"
		return gl
	}
	gl.Note = stateNote(g.Type, g.State)
	if g.IsShare() {
		gl.Note = JoinNote(NoteShareGroup, gl.Note)
	}
	if !g.IsConsumer() && g.Type != "streams" && !g.IsShare() {
		gl.Note = fmt.Sprintf("not a consumer group: a classic group of protocol type %s (a Kafka Connect worker group when connect); it keeps no consumer offsets", safetext.Name(g.ProtocolType))
	}

	keys, owner := groupRows(g, o)
	topics := map[string]bool{}
	for _, k := range keys {
		if !topics[k.Topic] {
			topics[k.Topic] = true
			gl.Topics = append(gl.Topics, k.Topic)
		}
		pl := partitionRow(s, g, k, owner, o)
		if pl.Error == "" && pl.Lag != nil {
			gl.TotalLag += *pl.Lag
		}
		gl.Partitions = append(gl.Partitions, pl)
	}
	return gl
}

// noteNothingOnTopics notes each --topic T a group named on the command
// line has no row on: without a word, its TOTAL-LAG 0 and no rows read as
// caught up on T (a typo'd group or topic in a check). A selection of
// every group lists only the groups with something on T, so none is
// noted there.
func noteNothingOnTopics(gl *GroupLag, g GroupSnapshot, o LagOptions) {
	if o.AllGroups || o.Scope.Empty() || !g.Exists || g.Err != nil || g.CommitErr != nil {
		return
	}
	for _, t := range o.Scope.TopicNames() {
		if !slices.Contains(gl.Topics, t) {
			gl.Note = JoinNote(gl.Note, fmt.Sprintf("%s %s", NoteNothingOnTopic, safetext.Name(t)))
		}
	}
}

// NoteNothingOnTopic starts the group note of a --topic the group has no
// commit on and no assignment of.
const NoteNothingOnTopic = "no commit on and no assignment of topic"

// groupRows is the partitions a group's lag has rows for (assigned,
// committed, without a start offset, or asked for, inside the scope),
// sorted, and the member each assigned partition belongs to.
func groupRows(g GroupSnapshot, o LagOptions) ([]TP, map[TP]Member) {
	scope := o.Scope
	owner := map[TP]Member{}
	rows := map[TP]bool{}
	for _, m := range g.Members {
		for t, ps := range m.Assigned {
			for _, p := range ps {
				owner[TP{t, p}] = m
				if scope.Has(t, p) {
					rows[TP{t, p}] = true
				}
			}
		}
	}
	g.Commits.Each(func(t string, p int32, _ Commit) {
		if scope.Has(t, p) {
			rows[TP{t, p}] = true
		}
	})
	for _, k := range g.NoStart {
		if scope.Has(k.Topic, k.Partition) {
			rows[k] = true
		}
	}
	g.Negative.Each(func(t string, p int32, _ int64) {
		if scope.Has(t, p) {
			rows[TP{t, p}] = true
		}
	})
	if g.Err == nil && g.CommitErr == nil {
		addAskedRows(rows, g, scope, o.AllGroups)
	}
	keys := make([]TP, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareTP)
	return keys, owner
}

// partitionRow is one partition's row of a group's lag.
func partitionRow(s *Snapshot, g GroupSnapshot, k TP, owner map[TP]Member, o LagOptions) PartitionLag {
	pl := PartitionLag{Topic: k.Topic, Partition: k.Partition, LogStart: -1, LogEnd: -1}
	if m, ok := owner[k]; ok {
		pl.Member, pl.ClientID, pl.Host = m.ID, m.ClientID, m.Host
	}
	if c, ok := g.Commits[k.Topic][k.Partition]; ok {
		if c.Err != nil {
			pl.Error = fmt.Sprintf("committed offset: %v", c.Err)
		} else {
			off := c.Offset
			pl.Committed = &off
		}
	}
	po, ok, terr := s.Offsets.Lookup(k.Topic, k.Partition)
	if pl.Error = offsetsError(k.Topic, k.Partition, po, ok, terr); pl.Error == "" {
		pl.LogStart, pl.LogEnd = po.Start, po.End
	}
	if pl.Error != "" {
		return pl
	}
	pl.Lag, pl.Note = partitionLag(pl.Committed, po.Start, po.End, s.Isolation, o.AssumeReset)
	if neg, ok := g.Negative[k.Topic][k.Partition]; ok && pl.Committed == nil {
		// In place of the no-commit note, which it says more of.
		pl.Note = fmt.Sprintf("the committed offset is %d, which is not an offset: read as no commit, as kafka-consumer-groups does (the consumer starts as its auto.offset.reset says)", neg)
	}
	if c, ok := g.Commits[k.Topic][k.Partition]; ok && g.IsShare() && c.Err == nil {
		var note string
		pl.Lag, note = shareLag(c, pl.Lag)
		pl.Note = JoinNote(pl.Note, note)
	} else if g.IsShare() && pl.Committed == nil && o.AssumeReset == AssumeNothing {
		pl.Note = NoteShareNoStart
	}
	return pl
}

// addAskedRows adds a row for every partition named in the scope (--topic
// T:3) that has none, so that a filter that matches no commit and no
// assignment shows the partition with COMMITTED - instead of nothing, as
// kafka-consumer-groups --describe shows an assigned partition with no
// commit. With every group of the cluster, only a group with commits or
// an assignment on the topic gets them: the others have nothing to do
// with it.
func addAskedRows(rows map[TP]bool, g GroupSnapshot, scope Scope, allGroups bool) {
	onTopic := map[string]bool{}
	for t := range g.Commits {
		onTopic[t] = true
	}
	for t := range g.Negative {
		onTopic[t] = true
	}
	for _, m := range g.Members {
		for t := range m.Assigned {
			onTopic[t] = true
		}
	}
	for t, ps := range scope.Named {
		if allGroups && !onTopic[t] {
			continue
		}
		for _, p := range ps {
			if scope.Has(t, p) {
				rows[TP{t, p}] = true
			}
		}
	}
}

// partitionLag computes the lag of one partition (nil when unknown) and a
// note for the unusual cases. end is the high watermark, or under
// read_committed the last stable offset.
func partitionLag(committed *int64, start, end int64, iso Isolation, assume AssumeReset) (*int64, string) {
	if committed == nil {
		return uncommittedLag(start, end, assume)
	}
	lag, note := committedLag(*committed, start, end, iso)
	return &lag, note
}

// committedLag is partitionLag of a committed partition.
func committedLag(c, start, end int64, iso Isolation) (int64, string) {
	switch {
	case c > end && iso == ReadCommitted:
		// ListOffsets under read_committed answers the last stable
		// offset, which stops at the first open transaction: a consumer
		// that commits what it read uncommitted is past it, though it is
		// not past the log. Only a commit beyond the high watermark is.
		return 0, fmt.Sprintf("committed offset is %d past the last stable offset (a transaction is open, or the commit is past the log end)", c-end)
	case c > end:
		return 0, fmt.Sprintf("committed offset is %d past the log end", c-end)
	case c < start:
		return end - c, fmt.Sprintf("%d records expired unread (log start %d is past the commit)", start-c, start)
	}
	return end - c, ""
}

// uncommittedLag is the lag of a partition the group never committed. A
// consumer there starts where its auto.offset.reset says (the Java
// default is latest, so the real backlog is usually about 0), which the
// broker does not know: like kafka-consumer-groups --describe, the lag is
// unknown unless the user says what to assume.
func uncommittedLag(start, end int64, assume AssumeReset) (*int64, string) {
	switch assume {
	case AssumeEarliest:
		return new(end - start), "no committed offset: lag assumes auto.offset.reset=earliest (from the log start)"
	case AssumeLatest:
		return new(int64(0)), "no committed offset: lag assumes auto.offset.reset=latest (from the log end)"
	}
	return nil, "no committed offset: the consumer starts at the log start or end, as its auto.offset.reset says (--assume-reset for a number)"
}

func stateNote(typ, state string) string {
	switch state {
	case "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling":
		return "group is rebalancing (" + state + "): assignments may change"
	case "Dead":
		return "group is dead"
	case "Empty":
		return "no active members"
	}
	_ = typ
	return ""
}

// WithRows keeps the groups that have at least one row or an error: with
// --all-groups and a --topic, the groups that have nothing on the topic
// are noise.
func (r LagReport) WithRows() LagReport {
	out := r
	out.Groups = []GroupLag{}
	for _, g := range r.Groups {
		if len(g.Partitions) > 0 || g.Error != "" {
			out.Groups = append(out.Groups, g)
		}
	}
	return out
}

// GroupSummary is one row of `groups`.
type GroupSummary struct {
	Group string `json:"group"`
	Type  string `json:"type"`
	// ProtocolType says what a classic group that is not a consumer group
	// is ("connect"); empty for consumer groups.
	ProtocolType string   `json:"protocol_type,omitempty"`
	State        string   `json:"state"`
	Members      int      `json:"members"`
	Topics       []string `json:"topics"`
	// TotalLag is nil when it is not known (GroupLag.TotalLagKnown).
	TotalLag *int64 `json:"total_lag"`
	Error    string `json:"error"`
	// Status is the group's health (groups --status), StatusReason why.
	Status       string `json:"status,omitempty"`
	StatusReason string `json:"status_reason,omitempty"`
}

// GroupStates are the states a consumer group can be in, classic and
// KIP-848 (the list Apache's --state accepts).
var GroupStates = []string{"Empty", "Dead", "Stable", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}

// ParseStates parses the values of --state (repeatable, each a
// comma-separated list; case-insensitive) into the states' own names. An
// empty value or an empty item ("Empty,", ",Stable", "Empty,,Stable") is
// an error, never "every state".
func ParseStates(values []string) ([]string, error) {
	valid := "valid states are " + strings.Join(GroupStates, ", ")
	var out []string
	for _, v := range values {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("must name at least one state (%s)", valid)
		}
		items := strings.Split(v, ",")
		for i, item := range items {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, fmt.Errorf("item %d is empty (%s)", i+1, valid)
			}
			state := ""
			for _, s := range GroupStates {
				if strings.EqualFold(item, s) {
					state = s
				}
			}
			switch {
			// The value is never echoed (a pasted secret, a terminal
			// escape): the item's place says which.
			case state == "" && len(items) == 1:
				return nil, fmt.Errorf("want a state (%s)", valid)
			case state == "":
				return nil, fmt.Errorf("item %d is not a state (%s)", i+1, valid)
			}
			if !slices.Contains(out, state) {
				out = append(out, state)
			}
		}
	}
	return out, nil
}

// Summarize turns a lag report into `groups` rows, keeping only groups whose
// state is in states (case-insensitive; all when empty).
func Summarize(r LagReport, states []string) []GroupSummary {
	out := []GroupSummary{}
	for _, g := range KeepStates(r, states).Groups {
		gs := GroupSummary{Group: g.Group, Type: g.Type, State: g.State, Members: g.Members, Topics: g.Topics, TotalLag: g.OptTotalLag(), Error: g.Error}
		if g.ProtocolType != "consumer" {
			gs.ProtocolType = g.ProtocolType
		}
		for _, p := range g.Partitions {
			if p.Error != "" && gs.Error == "" {
				gs.Error = fmt.Sprintf("topic %s partition %d: %s", p.Topic, p.Partition, p.Error)
			}
		}
		out = append(out, gs)
	}
	return out
}

// KeepStates is r with the groups in states only (case-insensitive; all
// when none): the groups `groups --state` shows, so that its thresholds
// and --status judge those alone.
func KeepStates(r LagReport, states []string) LagReport {
	if len(states) == 0 {
		return r
	}
	want := map[string]bool{}
	for _, s := range states {
		want[strings.ToLower(strings.TrimSpace(s))] = true
	}
	kept := make([]GroupLag, 0, len(r.Groups))
	for _, g := range r.Groups {
		if want[strings.ToLower(g.State)] {
			kept = append(kept, g)
		}
	}
	r.Groups = kept
	return r
}

// GroupState is one row of `lag --state`, as kafka-consumer-groups
// --describe --state shows it.
type GroupState struct {
	Group        string `json:"group"`
	Type         string `json:"type"`
	ProtocolType string `json:"protocol_type,omitempty"`
	Coordinator  *int32 `json:"coordinator"`
	Assignor     string `json:"assignor"`
	State        string `json:"state"`
	Members      int    `json:"members"`
	Error        string `json:"error,omitempty"`
}

// States is the `lag --state` view of a report.
func States(r LagReport) []GroupState {
	out := make([]GroupState, 0, len(r.Groups))
	for _, g := range r.Groups {
		out = append(out, GroupState{Group: g.Group, Type: g.Type, ProtocolType: g.ProtocolType, Coordinator: g.Coordinator, Assignor: g.Assignor, State: g.State, Members: g.Members, Error: g.Error})
	}
	return out
}

// Members is the `lag --members` view: every member of every group, idle
// ones (no partitions) included.
func Members(r LagReport) []MemberRow {
	out := []MemberRow{}
	for _, g := range r.Groups {
		out = append(out, g.MemberList...)
	}
	return out
}

// JoinNote appends note b to a row's note a; an empty side adds no
// separator (a note ending in "; " has a trailing space, which the table
// then prints quoted).
func JoinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// offsetsError is a row's error from its partition's listed offsets (po,
// ok: listed at all; terr: the topic's error), "" when they are usable.
func offsetsError(topic string, partition int32, po PartitionOffsets, ok bool, terr error) string {
	switch {
	case terr != nil:
		return terr.Error()
	case !ok:
		return fmt.Sprintf("partition %d does not exist in topic %s", partition, topic)
	case po.Err != nil:
		return fmt.Sprintf("listing offsets: %v", po.Err)
	}
	return ""
}
