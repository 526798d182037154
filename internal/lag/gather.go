package lag

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Isolation selects which end offset is the log end: the high watermark
// (read_uncommitted) or the last stable offset (read_committed).
type Isolation int8

const (
	ReadUncommitted Isolation = 0
	ReadCommitted   Isolation = 1
)

// ParseIsolation parses "uncommitted" or "committed" (also the Java names).
func ParseIsolation(s string) (Isolation, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "uncommitted", "read_uncommitted", "hwm":
		return ReadUncommitted, nil
	case "committed", "read_committed", "lso":
		return ReadCommitted, nil
	}
	return 0, errors.New("want uncommitted or committed")
}

func (i Isolation) String() string {
	if i == ReadCommitted {
		return "committed"
	}
	return "uncommitted"
}

// Member is one live member of a group and what it is assigned.
type Member struct {
	ID         string             `json:"member_id"`
	InstanceID *string            `json:"instance_id,omitempty"` // nil: not a static member
	ClientID   string             `json:"client_id"`
	Host       string             `json:"host"`
	Assigned   map[string][]int32 `json:"assigned"`
}

// GroupInfo is a group's type, state and members.
type GroupInfo struct {
	Group        string
	Type         string // classic or consumer (KIP-848)
	State        string
	ProtocolType string
	// Assignor is the partition assignor (a classic group's protocol, a
	// KIP-848 group's assignor name); Coordinator the broker id of the
	// group coordinator that answered, -1 when unknown.
	Assignor    string
	Coordinator int32
	Members     []Member
	// Exists is false when the cluster knows nothing of the group: not
	// listed and no committed offsets.
	Exists bool
	Err    error
}

// Commit is one committed offset.
type Commit struct {
	Offset      int64
	LeaderEpoch int32
	Metadata    string
	// ShareLag is a share group's lag as the broker counts it
	// (DescribeShareGroupOffsets v1, KIP-1226); nil otherwise.
	ShareLag *int64
	Err      error
}

// GroupSnapshot is one group as gathered.
type GroupSnapshot struct {
	GroupInfo
	// Commits maps topic → partition → commit. Partitions without a
	// commit are absent.
	Commits   PartitionMap[Commit]
	CommitErr error
	// NoStart is, for a share group, the share-partitions the broker lists
	// without a start offset (-1): Apache shows them with "-", and a
	// reset of every topic (--all-topics) includes them, as Apache's does.
	NoStart []TP
	// Negative holds the commits of a negative offset other than -1 (the
	// protocol's "no offset"): a raw OffsetCommit can store one (Kafka
	// 4.4 does). It is no offset to measure a lag from, so it is not in
	// Commits (a reset or a backup never takes it for one), but lag shows
	// the partition, with "-" and a note, as kafka-consumer-groups does:
	// dropping the row hid that the group's commit there is broken.
	Negative PartitionMap[int64]
}

// PartitionOffsets is the log start and log end of one partition; -1 when
// unknown (Err says why).
type PartitionOffsets struct {
	Start int64
	End   int64
	Err   error
}

// TopicOffsets holds the offsets of every partition of the gathered topics.
type TopicOffsets struct {
	Partitions PartitionMap[PartitionOffsets]
	// TopicErr is set for a topic that could not be listed at all (e.g.
	// deleted: UNKNOWN_TOPIC_OR_PARTITION).
	TopicErr map[string]error
}

// Lookup returns the offsets of topic/partition. ok is false when the
// partition is unknown; err explains a topic-level failure.
func (t TopicOffsets) Lookup(topic string, partition int32) (PartitionOffsets, bool, error) {
	if err := t.TopicErr[topic]; err != nil {
		return PartitionOffsets{Start: -1, End: -1, Err: err}, false, err
	}
	po, ok := t.Partitions[topic][partition]
	return po, ok, nil
}

// Snapshot is everything gathered for a set of groups at one moment.
type Snapshot struct {
	Groups    []GroupSnapshot
	Offsets   TopicOffsets
	Isolation Isolation
	At        time.Time
	// SkippedShare are the share groups (KIP-932) an --all-groups or
	// --regex selection matched but left out (GatherRequest.ShareGroups
	// unset), sorted: a command that changes offsets reports each one as
	// skipped instead of silently leaving it alone.
	SkippedShare []string
	// SkippedKind are the listed groups a selection of consumer groups
	// (AllGroups without OtherProtocols) leaves out for their kind,
	// whatever Match says (it is not asked about them), sorted: a --regex
	// pattern that matched only these is named as such, not as a typo.
	SkippedKind []KindSkipped
}

// KindSkipped is a listed group that is not a consumer group: a Kafka
// Streams group (KIP-1071, Type "streams") or a classic group of another
// protocol (ProtocolType "connect": a Kafka Connect worker group). The
// commands that change offsets, and snapshot, never select one by a
// pattern or --all-groups.
type KindSkipped struct {
	Group        string
	Type         string
	ProtocolType string
}

// kind is the noun of a KindSkipped for a count, and what follows the
// count's noun: ("Kafka Streams group", ""), ("classic group", " of
// protocol type X").
func (k KindSkipped) kind() (noun, tail string) {
	switch {
	case k.Type == "streams":
		return "Kafka Streams group", ""
	case k.ProtocolType == "connect":
		return "Kafka Connect worker group", ""
	}
	// Cluster data: a protocol type is any string a client joined with.
	return "classic group", " of protocol type " + safetext.Name(k.ProtocolType)
}

// CountKinds says how many groups of each kind there are, in the order
// first seen: "2 Kafka Streams groups and 1 Kafka Connect worker group".
func CountKinds(groups []KindSkipped) string {
	type kind struct{ noun, tail string }
	var order []kind
	n := map[kind]int{}
	for _, g := range groups {
		noun, tail := g.kind()
		k := kind{noun, tail}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = textlist.Count(n[k], k.noun) + k.tail
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// Group returns the snapshot of one group.
func (s *Snapshot) Group(name string) (*GroupSnapshot, bool) {
	for i := range s.Groups {
		if s.Groups[i].Group == name {
			return &s.Groups[i], true
		}
	}
	return nil, false
}

// GatherRequest says what to gather.
type GatherRequest struct {
	Groups    []string
	AllGroups bool
	// Scope limits the topics whose offsets are listed; empty means every
	// topic the groups have commits on or are assigned.
	Scope     Scope
	Isolation Isolation
	// ExtraTopics are listed even if no group touches them (reset scopes).
	ExtraTopics []string
	// Match, when set with AllGroups, keeps only the listed groups it
	// accepts (a --regex/--exclude selection). It runs on the ListGroups
	// answer, so a group it rejects is never described or fetched.
	Match func(group string) bool
	// OtherProtocols, with AllGroups, also lists classic groups that are
	// not consumer groups (Kafka Connect workers): `lag` and `groups` show
	// them for what they are; commands that change offsets leave them out.
	OtherProtocols bool
	// ShareGroups, with AllGroups, also lists share groups (KIP-932):
	// `lag` and `groups` show them; commands that change offsets change a
	// share group only when it is named.
	ShareGroups bool
	// NoLeaderWait lists log offsets once, without waiting out leader
	// elections (see ListOffsets): for the exporter, whose next round is
	// the retry, and whose round must not be held by an offline partition.
	NoLeaderWait bool
}

// ListGroups lists every group in the cluster with its type and state.
//
// ListGroups goes to every broker the client knows; one that does not
// answer is an error (kadm's *ShardErrors), never fewer groups. franz-go
// asks the brokers of its latest metadata, so a metadata answer that named
// none (a cluster starting up) would send the request nowhere and read as
// "no groups": that is an error too, never an empty report with exit 0.
func ListGroups(ctx context.Context, adm *cluster.Admin) (kadm.ListedGroups, error) {
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing groups: %w", err)
	}
	if len(listed) == 0 && adm.Kgo != nil && len(adm.Kgo.DiscoveredBrokers()) == 0 {
		return nil, errors.New("listing groups: the cluster's metadata named no broker to ask (is it starting up?)")
	}
	return listed, nil
}

// ConsumerGroupNames returns, sorted, the listed groups whose consumer
// offsets offsetctl changes: classic consumer groups and KIP-848 groups,
// not Connect workers, share or streams groups.
func ConsumerGroupNames(listed kadm.ListedGroups) []string {
	return listedNames(listed, false, false)
}

// listedNames is ConsumerGroupNames, with other set also the groups that
// are shown for what they are: the classic groups of other protocols
// (Kafka Connect workers) and Kafka Streams groups (KIP-1071), whose
// committed offsets `lag` reads but which offsetctl never changes; and
// with share set, share groups (KIP-932).
func listedNames(listed kadm.ListedGroups, other, share bool) []string {
	groups := make([]string, 0, len(listed))
	for g, lg := range listed {
		if lg.GroupType == ShareType {
			if share {
				groups = append(groups, g)
			}
			continue
		}
		if lg.GroupType == "streams" {
			if other {
				groups = append(groups, g)
			}
			continue
		}
		if lg.ProtocolType != "" && lg.ProtocolType != "consumer" && !other {
			continue // connect workers and the like have no offsets
		}
		groups = append(groups, g)
	}
	sort.Strings(groups)
	return groups
}

// SelectGroups is the groups a request names: its Groups, or with
// AllGroups every listed consumer group (and, with OtherProtocols, the
// classic groups of other protocols) that Match accepts.
func SelectGroups(listed kadm.ListedGroups, req GatherRequest) []string {
	if !req.AllGroups {
		return Dedupe(req.Groups)
	}
	groups := listedNames(listed, req.OtherProtocols, req.ShareGroups)
	if req.Match != nil {
		groups = slices.DeleteFunc(groups, func(g string) bool { return !req.Match(g) })
	}
	// Named groups ride along: a restore of every group of a snapshot
	// includes the groups deleted since (not listed).
	return Dedupe(append(groups, req.Groups...))
}

// SkippedShareGroups is the share groups a selection (AllGroups, with its
// Match) matched in the listing but does not gather, because ShareGroups
// is unset: a command that changes offsets changes a share group only
// when it is named (its reset is not atomic across partitions and drops
// the acknowledgement state past the start offset, and some targets do
// not apply), so it names them as skipped. A share group also named in
// Groups is gathered, so not skipped. Sorted.
func SkippedShareGroups(listed kadm.ListedGroups, req GatherRequest) []string {
	if !req.AllGroups || req.ShareGroups {
		return nil
	}
	var out []string
	for g, lg := range listed {
		if lg.GroupType == ShareType && (req.Match == nil || req.Match(g)) && !slices.Contains(req.Groups, g) {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// SkippedKindGroups is the listed groups a selection (AllGroups without
// OtherProtocols) leaves out for their kind (see KindSkipped), sorted.
// Match is not asked: it counts the groups each pattern matched.
func SkippedKindGroups(listed kadm.ListedGroups, req GatherRequest) []KindSkipped {
	if !req.AllGroups || req.OtherProtocols {
		return nil
	}
	var out []KindSkipped
	for g, lg := range listed {
		if lg.GroupType == ShareType {
			continue // SkippedShareGroups
		}
		if lg.GroupType == "streams" || (lg.ProtocolType != "" && lg.ProtocolType != "consumer") {
			out = append(out, KindSkipped{Group: g, Type: lg.GroupType, ProtocolType: lg.ProtocolType})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// DescribeGroups describes groups of every type. listed (from ListGroups)
// tells each group's type, and so which API describes it: DescribeGroups
// (classic), ConsumerGroupDescribe (KIP-848), StreamsGroupDescribe
// (KIP-1071) or ShareGroupDescribe (KIP-932); the four run at once.
func DescribeGroups(ctx context.Context, adm *cluster.Admin, groups []string, listed kadm.ListedGroups) (map[string]GroupInfo, error) {
	d, err := describeByType(ctx, adm, groupsByType(groups, listed))
	if err != nil {
		return nil, err
	}
	out := make(map[string]GroupInfo, len(groups))
	for _, g := range groups {
		out[g] = d.info(g, listed)
	}
	return out, nil
}

// byType is the listed groups by the API that describes them; a group not
// listed is in none (the cluster does not know it).
type byType struct{ classic, consumer, streams, share []string }

func groupsByType(groups []string, listed kadm.ListedGroups) byType {
	var b byType
	for _, g := range groups {
		lg, ok := listed[g]
		switch {
		case !ok:
		case lg.GroupType == "consumer":
			b.consumer = append(b.consumer, g)
		case lg.GroupType == "streams":
			b.streams = append(b.streams, g)
		case lg.GroupType == ShareType:
			b.share = append(b.share, g)
		default:
			b.classic = append(b.classic, g)
		}
	}
	return b
}

// descriptions are the four APIs' answers.
type descriptions struct {
	classic                  kadm.DescribedGroups
	classicFailed            map[string]error
	consumer, streams, share map[string]GroupInfo
}

// describeByType describes each kind of group with its API, at once.
func describeByType(ctx context.Context, adm *cluster.Admin, b byType) (descriptions, error) {
	var (
		d             descriptions
		wg            sync.WaitGroup
		cerr, kerr848 error
	)
	run := func(groups []string, f func()) {
		if len(groups) > 0 {
			wg.Go(f)
		}
	}
	run(b.streams, func() { d.streams = describeStreamsGroups(ctx, adm, b.streams) })
	run(b.share, func() { d.share = describeShareGroups(ctx, adm, b.share) })
	run(b.classic, func() { d.classic, d.classicFailed, cerr = describeClassicGroups(ctx, adm, b.classic) })
	run(b.consumer, func() { d.consumer, kerr848 = describeConsumerGroups(ctx, adm, b.consumer) })
	wg.Wait()
	if cerr != nil {
		return d, fmt.Errorf("describing groups: %w", cerr)
	}
	if kerr848 != nil && !IsShardErr(kerr848) {
		return d, fmt.Errorf("describing consumer groups: %w", kerr848)
	}
	return d, nil
}

// info is group g as listed and described.
func (d descriptions) info(g string, listed kadm.ListedGroups) GroupInfo {
	lg, isListed := listed[g]
	// A group the cluster does not know has no type.
	gi := GroupInfo{Group: g, State: "Dead", Exists: isListed, Coordinator: -1}
	if isListed {
		gi.Type = "classic" // brokers before 3.8 list no type: all classic
		gi.State = lg.State
		gi.ProtocolType = lg.ProtocolType
		if lg.GroupType != "" {
			gi.Type = lg.GroupType
		}
	}
	// A classic group whose DescribeGroups failed as a whole (its
	// coordinator could not be found, or did not answer) has no
	// description: say so rather than show it without members.
	if err := d.classicFailed[g]; err != nil {
		gi.Err = err
	}
	if dg, ok := d.classic[g]; ok {
		gi.Err = dg.Err
		if dg.Err == nil {
			gi.State = dg.State
			gi.ProtocolType = dg.ProtocolType
			gi.Assignor, gi.Coordinator = dg.Protocol, dg.Coordinator.NodeID
			gi.Members = classicMembers(dg)
		}
	}
	if dd, ok := d.consumer[g]; ok {
		gi.Err = dd.Err
		if dd.Err == nil {
			gi.Type = "consumer"
			gi.State, gi.Members = dd.State, dd.Members
			gi.Assignor, gi.Coordinator = dd.Assignor, dd.Coordinator
		}
	}
	if dd, ok := d.streams[g]; ok {
		gi.Err = dd.Err
		if dd.Err == nil {
			gi.State, gi.Members = dd.State, dd.Members
			gi.Assignor, gi.Coordinator = dd.Assignor, dd.Coordinator
		}
	}
	if dd, ok := d.share[g]; ok {
		gi = dd
	}
	for i := range gi.Members {
		for _, ps := range gi.Members[i].Assigned {
			slices.Sort(ps)
		}
	}
	return gi
}

// classicMembers is a classic group's members with the partitions their
// consumer-protocol assignment names.
func classicMembers(dg kadm.DescribedGroup) []Member {
	var out []Member
	for _, m := range dg.Members {
		mem := Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Assigned: map[string][]int32{}}
		mem.InstanceID = m.InstanceID
		if ca, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range ca.Topics {
				mem.Assigned[t.Topic] = append(mem.Assigned[t.Topic], t.Partitions...)
			}
		}
		out = append(out, mem)
	}
	return out
}

// IsShardErr reports whether err is kadm's per-broker ShardErrors: some
// brokers of a sharded request answered and some did not.
func IsShardErr(err error) bool {
	var se *kadm.ShardErrors
	return errors.As(err, &se)
}

// shardErrGroups maps each group of a failed DescribeGroups shard (in
// kadm's error) to the shard's error.
func shardErrGroups(err error) map[string]error {
	out := map[string]error{}
	var se *kadm.ShardErrors
	if !errors.As(err, &se) {
		return out
	}
	for _, e := range se.Errs {
		if req, ok := e.Req.(*kmsg.DescribeGroupsRequest); ok {
			for _, g := range req.Groups {
				out[g] = e.Err
			}
		}
	}
	return out
}

// IsCoordinatorErr reports whether err says a group's coordinator is not
// there yet or has moved (coordretry.Retriable: the one policy every
// coordinator-bound request of offsetctl follows).
func IsCoordinatorErr(err error) bool { return coordretry.Retriable(err) }

// retryCoordinator calls attempt with groups, then again with the groups
// it returns (those whose answer was a coordinator error, see
// coordretry.Retriable) after the policy's backoff, until it returns none
// or ctx would end before the next attempt: then the last answers stand,
// and gaveUp wraps a group's coordinator error to name the group, the
// error and how long it was retried (coordretry.GaveUpError).
//
// Every request retried this way is a read (OffsetFetch, the describes)
// or a change the broker refused with the coordinator error, so a retry
// never repeats an applied change.
func retryCoordinator(ctx context.Context, groups []string, attempt func(groups []string) (retry []string)) (gaveUp func(group string, err error) error) {
	r := coordretry.New(ctx)
	for len(groups) > 0 {
		groups = attempt(groups)
		if len(groups) > 0 && !r.Next() {
			return func(g string, err error) error { return r.GaveUp(coordretry.Group(g), err) }
		}
	}
	return func(_ string, err error) error { return err }
}

// RetryGroups asks ask for groups, then again, after a short backoff,
// for the groups whose answer is a coordinator error (see
// retryCoordinator). The latest answer per group stands, except that a
// retry cut by the deadline does not replace the coordinator error that
// caused it; an error left at the end says how long it was retried. errp
// points at an answer's error.
func RetryGroups[T any](ctx context.Context, groups []string, ask func(groups []string) map[string]T, errp func(*T) *error) map[string]T {
	out := make(map[string]T, len(groups))
	gaveUp := retryCoordinator(ctx, groups, func(groups []string) []string {
		answers := ask(groups)
		var retry []string
		for _, g := range groups {
			a, ok := answers[g]
			if !ok {
				continue
			}
			if prev, ok := out[g]; ok && coordretry.Keep(*errp(&prev), *errp(&a)) {
				continue
			}
			out[g] = a
			if IsCoordinatorErr(*errp(&a)) {
				coordretry.Note(ctx, coordretry.Group(g), *errp(&a))
				retry = append(retry, g)
			}
		}
		return retry
	})
	for g, a := range out {
		*errp(&a) = gaveUp(g, *errp(&a))
		out[g] = a
	}
	return out
}

// classicAnswer is one group's answer to DescribeGroups: its description,
// or the error of the request that carried it.
type classicAnswer struct {
	dg        kadm.DescribedGroup
	described bool
	shardErr  error
}

// describeClassicGroups is kadm's DescribeGroups, retrying the groups
// whose coordinator is not available yet (see RetryGroups). failed holds
// the groups whose request failed as a whole, with its error; err is an
// error that is not about some groups' requests.
func describeClassicGroups(ctx context.Context, adm *cluster.Admin, groups []string) (described kadm.DescribedGroups, failed map[string]error, err error) {
	var fatal error
	answers := RetryGroups(ctx, groups, func(groups []string) map[string]classicAnswer {
		d, err := adm.DescribeGroups(ctx, groups...)
		if err != nil && !IsShardErr(err) {
			fatal = err
			return nil
		}
		out := make(map[string]classicAnswer, len(groups))
		for g, ferr := range shardErrGroups(err) {
			out[g] = classicAnswer{shardErr: ferr}
		}
		for g, dg := range d {
			out[g] = classicAnswer{dg: dg, described: true}
		}
		return out
	}, func(a *classicAnswer) *error {
		if a.described {
			return &a.dg.Err
		}
		return &a.shardErr
	})
	if fatal != nil {
		return nil, nil, fatal
	}
	described, failed = kadm.DescribedGroups{}, map[string]error{}
	for g, a := range answers {
		if a.described {
			described[g] = a.dg
		} else {
			failed[g] = a.shardErr
		}
	}
	return described, failed, nil
}

// FetchOffsets is kadm's FetchOffsets (one group's committed offsets),
// retrying while the group's coordinator is not available yet (see
// RetryGroups) until ctx would end.
func FetchOffsets(ctx context.Context, adm *cluster.Admin, group string) (kadm.OffsetResponses, error) {
	type answer struct {
		resp kadm.OffsetResponses
		err  error
	}
	a := RetryGroups(ctx, []string{group}, func([]string) map[string]answer {
		r, err := adm.FetchOffsets(ctx, group)
		return map[string]answer{group: {r, err}}
	}, func(a *answer) *error { return &a.err })[group]
	return a.resp, a.err
}

// fetchManyOffsets is kadm's FetchManyOffsets, retrying the groups whose
// coordinator is not available yet (see RetryGroups).
func fetchManyOffsets(ctx context.Context, adm *cluster.Admin, groups []string) kadm.FetchOffsetsResponses {
	return RetryGroups(ctx, groups, func(groups []string) map[string]kadm.FetchOffsetsResponse {
		return adm.FetchManyOffsets(ctx, groups...)
	}, func(r *kadm.FetchOffsetsResponse) *error { return &r.Err })
}

// FetchCommits fetches the committed offsets of many groups, batched per
// coordinator (one OffsetFetch each), retrying the groups whose
// coordinator is not available yet until ctx would end.
func FetchCommits(ctx context.Context, adm *cluster.Admin, groups []string) map[string]GroupSnapshot {
	out := make(map[string]GroupSnapshot, len(groups))
	if len(groups) == 0 {
		return out
	}
	resps := fetchManyOffsets(ctx, adm, groups)
	for _, g := range groups {
		r, ok := resps[g]
		gs := GroupSnapshot{Commits: PartitionMap[Commit]{}}
		switch {
		case !ok:
			gs.CommitErr = fmt.Errorf("no offset-fetch response for group %s", safetext.Arg(g))
		case errors.Is(r.Err, kerr.GroupIDNotFound):
			// Some brokers answer an unknown group this way; others
			// with no offsets. Either way: no commits.
		case r.Err != nil:
			gs.CommitErr = r.Err
		}
		for t, ps := range r.Fetched {
			for p, o := range ps {
				if o.Err == nil && o.At < 0 {
					if o.At != -1 {
						if gs.Negative == nil {
							gs.Negative = PartitionMap[int64]{}
						}
						gs.Negative.Set(t, p, o.At)
					}
					continue // no commit
				}
				gs.Commits.Set(t, p, Commit{Offset: o.At, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata, Err: o.Err})
			}
		}
		out[g] = gs
	}
	return out
}

// ListOffsets lists the log start and the log end (per isolation) of every
// partition of topics: one metadata request and one ListOffsets per
// partition leader for each bound, the two bounds in parallel.
//
// While a partition has no leader or its leader moves (a broker restart,
// a broker fenced and unfenced after a pause), the cluster answers
// LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER and the like for a second
// or two, and kgo hands them back rather than waiting: the listing is
// then done again after a short backoff, as the Java admin client does,
// until it has none of those errors, for at most leaderWait after the
// first listing or until ctx would end (the last listing then stands,
// with its errors: a partition that stays offline is an error row, and an
// exporter scrape is not held for the whole --timeout). An unknown topic is not waited for: it is
// bad input.
func ListOffsets(ctx context.Context, adm *cluster.Admin, topics []string, iso Isolation) (TopicOffsets, error) {
	var first time.Time // when the first listing came back (kgo may have retried in it)
	for try := 0; ; try++ {
		to, err := listOffsetsOnce(ctx, adm, topics, iso)
		if first.IsZero() {
			first = time.Now()
		}
		wait := coordretry.Backoff(try)
		if err != nil || !to.leaderMoving() || time.Since(first)+wait > leaderWait || !coordretry.Wait(ctx, wait) {
			return to, err
		}
	}
}

// leaderWait bounds how long ListOffsets lists again for leaders to
// settle, after the first listing: a leader election takes well under a
// second; a single broker fenced and unfenced after a pause, about two
// (one heartbeat); kgo's own retries of NOT_LEADER_OR_FOLLOWER wait for
// metadata refreshes of a second or more each.
const leaderWait = 10 * time.Second

// leaderMoving reports whether a topic or partition of the listing failed
// with an error the cluster gives while a leader is elected or moves.
func (to TopicOffsets) leaderMoving() bool {
	for _, err := range to.TopicErr {
		if leaderMovingErr(err) {
			return true
		}
	}
	moving := false
	to.Partitions.Each(func(_ string, _ int32, po PartitionOffsets) {
		moving = moving || leaderMovingErr(po.Err)
	})
	return moving
}

// leaderMovingErr: a retriable broker error (LEADER_NOT_AVAILABLE,
// NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, OFFSET_NOT_AVAILABLE, ...)
// other than UNKNOWN_TOPIC_OR_PARTITION, which kerr also marks retriable
// but which is what a topic that does not exist gets.
func leaderMovingErr(err error) bool {
	return err != nil && kerr.IsRetriable(err) && !errors.Is(err, kerr.UnknownTopicOrPartition)
}

// listOffsetsOnce is one listing of ListOffsets.
func listOffsetsOnce(ctx context.Context, adm *cluster.Admin, topics []string, iso Isolation) (TopicOffsets, error) {
	to := TopicOffsets{Partitions: PartitionMap[PartitionOffsets]{}, TopicErr: map[string]error{}}
	if len(topics) == 0 {
		return to, nil
	}
	var (
		wg               sync.WaitGroup
		starts, ends     kadm.ListedOffsets
		startErr, endErr error
	)
	wg.Add(2)
	go func() { defer wg.Done(); starts, startErr = adm.ListStartOffsets(ctx, topics...) }()
	go func() {
		defer wg.Done()
		if iso == ReadCommitted {
			ends, endErr = adm.ListCommittedOffsets(ctx, topics...)
		} else {
			ends, endErr = adm.ListEndOffsets(ctx, topics...)
		}
	}()
	wg.Wait()
	for _, err := range []error{startErr, endErr} {
		if err != nil && !IsShardErr(err) {
			return to, fmt.Errorf("listing offsets: %w", err)
		}
	}
	lost := unansweredOffsets(startErr, endErr)
	for _, t := range topics {
		if tl, ok := starts[t]; ok {
			if bad, ok := tl[-1]; ok && bad.Err != nil {
				to.TopicErr[t] = DescribeTopicErr(t, bad.Err)
				continue
			}
		} else if len(lost[t]) == 0 {
			// Neither listed nor in a failed request: the cluster's
			// answer is incomplete, which is not the topic's absence
			// (that is UNKNOWN_TOPIC_OR_PARTITION, above).
			to.TopicErr[t] = fmt.Errorf("topic %s: no offsets listed", t)
			continue
		}
		ps := map[int32]PartitionOffsets{}
		for p, s := range starts[t] {
			po := PartitionOffsets{Start: s.Offset, End: -1, Err: s.Err}
			if e, ok := ends[t][p]; ok {
				po.End = e.Offset
				if po.Err == nil {
					po.Err = e.Err
				}
			} else if po.Err == nil {
				po.Err = cmp.Or(lost[t][p], errors.New("no end offset listed"))
			}
			if s.Err != nil {
				po.Start = -1
			}
			ps[p] = po
		}
		// A partition whose leader did not answer is in no listing at
		// all: it is an error row, never a partition that does not
		// exist (bad input) or one silently left out of a plan.
		for p, err := range lost[t] {
			if _, ok := ps[p]; !ok {
				ps[p] = PartitionOffsets{Start: -1, End: -1, Err: err}
			}
		}
		to.Partitions[t] = ps
	}
	return to, nil
}

// unansweredOffsets maps each partition of a ListOffsets request that
// failed as a whole (its broker timed out, was frozen or refused it) to
// why. kadm reports those in *ShardErrors with the request piece, and
// leaves their partitions out of its result.
func unansweredOffsets(errs ...error) map[string]map[int32]error {
	out := map[string]map[int32]error{}
	for _, err := range errs {
		var se *kadm.ShardErrors
		if !errors.As(err, &se) {
			continue
		}
		for _, e := range se.Errs {
			req, ok := e.Req.(*kmsg.ListOffsetsRequest)
			if !ok {
				continue
			}
			why := fmt.Errorf("broker %d did not answer ListOffsets: %w", e.Broker.NodeID, e.Err)
			for _, t := range req.Topics {
				if out[t.Topic] == nil {
					out[t.Topic] = map[int32]error{}
				}
				for _, p := range t.Partitions {
					if out[t.Topic][p.Partition] == nil {
						out[t.Topic][p.Partition] = why
					}
				}
			}
		}
	}
	return out
}

// TopicFailure is the error for a topic that could not be listed: bad
// input (exit 2) only when the cluster said it does not exist; any other
// failure (a broker that did not answer) is operational, so a script
// retries it instead of reading "fix your command".
func TopicFailure(err error) error {
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return exitcode.AsUsage(err)
	}
	return err
}

// DescribeTopicErr words the failure of one topic the way a gather
// records it in TopicOffsets.TopicErr (tests build snapshots with it).
func DescribeTopicErr(topic string, err error) error {
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return &topicError{msg: fmt.Sprintf("topic %s does not exist (deleted?)", topic), err: err}
	}
	return fmt.Errorf("topic %s: %w", topic, err)
}

// topicError words a topic failure for people and keeps the broker's
// error for errors.Is.
type topicError struct {
	msg string
	err error
}

func (e *topicError) Error() string { return e.msg }
func (e *topicError) Unwrap() error { return e.err }

// Gather collects groups, their commits and the offsets of the topics they
// touch, in a constant number of batched rounds whatever the group count:
// ListGroups; DescribeGroups ∥ ConsumerGroupDescribe ∥ OffsetFetch; then
// ListOffsets for starts ∥ ends.
func Gather(ctx context.Context, adm *cluster.Admin, req GatherRequest) (*Snapshot, error) {
	listed, err := ListGroups(ctx, adm)
	if err != nil {
		return nil, err
	}
	return gatherListed(ctx, adm, req, listed)
}

// gatherListed is Gather with the groups already listed (StreamLag lists
// once and gathers batch by batch).
func gatherListed(ctx context.Context, adm *cluster.Admin, req GatherRequest, listed kadm.ListedGroups) (*Snapshot, error) {
	var err error
	groups := SelectGroups(listed, req)
	var (
		wg      sync.WaitGroup
		infos   map[string]GroupInfo
		descErr error
		commits map[string]GroupSnapshot
	)
	wg.Add(2)
	go func() { defer wg.Done(); infos, descErr = DescribeGroups(ctx, adm, groups, listed) }()
	go func() { defer wg.Done(); commits = fetchAllCommits(ctx, adm, groups, listed) }()
	wg.Wait()
	if descErr != nil {
		return nil, descErr
	}
	snap := &Snapshot{Isolation: req.Isolation, At: time.Now(), SkippedShare: SkippedShareGroups(listed, req), SkippedKind: SkippedKindGroups(listed, req)}
	topicSet := map[string]bool{}
	for _, t := range req.ExtraTopics {
		topicSet[t] = true
	}
	for _, g := range groups {
		gs := commits[g]
		gs.GroupInfo = infos[g]
		if !gs.Exists && len(gs.Commits) > 0 {
			gs.Exists = true
			gs.Type = "classic"
			if gs.State == "Dead" {
				gs.State = "Empty"
			}
		}
		for t := range gs.Commits {
			if req.Scope.HasTopic(t) {
				topicSet[t] = true
			}
		}
		for _, k := range gs.NoStart {
			if req.Scope.HasTopic(k.Topic) {
				topicSet[k.Topic] = true
			}
		}
		for t := range gs.Negative {
			if req.Scope.HasTopic(t) {
				topicSet[t] = true
			}
		}
		for _, m := range gs.Members {
			for t := range m.Assigned {
				if req.Scope.HasTopic(t) {
					topicSet[t] = true
				}
			}
		}
		snap.Groups = append(snap.Groups, gs)
	}
	topics := make([]string, 0, len(topicSet))
	for t := range topicSet {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	list := ListOffsets
	if req.NoLeaderWait {
		list = listOffsetsOnce
	}
	snap.Offsets, err = list(ctx, adm, topics, req.Isolation)
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// fetchAllCommits is FetchCommits for consumer groups and
// FetchShareCommits for the listed share groups, in parallel.
func fetchAllCommits(ctx context.Context, adm *cluster.Admin, groups []string, listed kadm.ListedGroups) map[string]GroupSnapshot {
	consumer, share := splitShare(groups, listed)
	var sc map[string]GroupSnapshot
	var wg sync.WaitGroup
	if len(share) > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); sc = FetchShareCommits(ctx, adm, share) }()
	}
	out := FetchCommits(ctx, adm, consumer)
	wg.Wait()
	for g, gs := range sc {
		out[g] = gs
	}
	return out
}

// splitShare splits groups into the share groups ListGroups listed and
// the others (consumer groups, and groups it did not list).
func splitShare(groups []string, listed kadm.ListedGroups) (consumer, share []string) {
	for _, g := range groups {
		if lg, ok := listed[g]; ok && lg.GroupType == ShareType {
			share = append(share, g)
		} else {
			consumer = append(consumer, g)
		}
	}
	return consumer, share
}

// Dedupe drops repeated names, keeping the order of first occurrence.
func Dedupe(in []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
