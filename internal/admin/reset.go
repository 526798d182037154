package admin

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Action is what executing a partition's plan does.
type Action int

// The actions.
const (
	// ActCommit commits Target.
	ActCommit Action = iota
	// ActDelete deletes the group's offset (restoring "no commit").
	ActDelete
	// ActSkip leaves the partition alone.
	ActSkip
)

// PartitionPlan is one partition of a reset plan, and after --execute what
// happened to it.
type PartitionPlan struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	LogStart  int64  `json:"log_start"`
	LogEnd    int64  `json:"log_end"`
	Current   *int64 `json:"current"`
	Target    *int64 `json:"target"`
	Delta     *int64 `json:"delta"`
	Note      string `json:"note"`
	Error     string `json:"error"`
	// Applied is set only when a --non-atomic execution failed between
	// its split commits: whether this partition's new offset was
	// committed (the group is then partly changed).
	Applied *bool `json:"applied,omitempty"`
	// Unacked marks a partition whose change the broker never
	// acknowledged (its answer did not name it, or the request got no
	// answer) and that the read-back judged (settleUnnamed): Applied true
	// or nil says it changed or may have, though Error says it was not
	// acknowledged. The audit entry records such a change as written, so
	// that undo restores it and later changes are checked against it.
	Unacked bool `json:"-"`
	// AckedPastStart is, for a share-partition the change sets or
	// deletes, how many records after its start offset are already
	// acknowledged or archived: state the change discards and no
	// restore gives back (see planShareAcked). Nil when none.
	AckedPastStart *int64 `json:"acked_past_start,omitempty"`
	Action         Action `json:"-"`
}

// GroupPlan is the reset plan of one group.
type GroupPlan struct {
	Group      string          `json:"group"`
	State      string          `json:"state"`
	Executed   bool            `json:"executed"`
	Backup     string          `json:"backup"`
	Note       string          `json:"note,omitempty"`
	Partitions []PartitionPlan `json:"partitions"`
	Type       string          `json:"-"`
	Members    int             `json:"-"`
	// GroupType is "share" for a share group (KIP-932), empty otherwise;
	// Atomic is false for one: its start offsets are not changed
	// all-or-nothing (see NoteShareReset).
	GroupType string `json:"group_type,omitempty"`
	Atomic    *bool  `json:"atomic,omitempty"`
	// Refused is set when the guard refuses the group (live members), and
	// says why: "group G has N active member(s) ...".
	Refused string `json:"refused,omitempty"`
	// Error is a group-level operational failure (describe or offset
	// fetch failed).
	Error string `json:"error,omitempty"`
	// Outcome, once executed, is what the broker acknowledged and a
	// read-back showed (OutcomeApplied, ...), never which step failed.
	Outcome string `json:"outcome,omitempty"`
	// CommitRequests is how many OffsetCommit requests --execute sent
	// (1 unless the commit exceeded the coordinator's batch limit).
	CommitRequests int `json:"-"`
	// Superseded says the transaction was committed and another offsetctl
	// took its transactional id over before the read-back, changing the
	// group again: the offsets read back are not this run's (Note says
	// so), so they were not compared with the plan.
	Superseded bool `json:"-"`
	// Aborted says, for a group whose transaction this run aborted, why
	// in a few words ("group became active"): the table marks its rows
	// (see NotApplied); the group's Error has the whole story.
	Aborted string `json:"-"`
	// SkippedLive says a selection (--all-groups, --regex) skipped the
	// group because it has live members: the command did not do what was
	// asked for it, which is a partial failure (exit 1), unlike a group
	// skipped for its kind (Kafka Streams, Connect), which no run resets.
	SkippedLive bool `json:"-"`
	// BackupExtra are rows the backup holds beyond the plan's partitions
	// (a share group's, see planShareUndo), so that its restore works.
	BackupExtra []PlanRow `json:"-"`
}

// NotApplied is the note of the rows of a group whose execution changed
// nothing (outcome failed: its transaction aborted, its commit refused),
// so that they do not read like applied ones: "not applied: " and why in
// a few words. "" for any other group.
func (g GroupPlan) NotApplied() string {
	if g.Outcome != OutcomeFailed {
		return ""
	}
	if g.Aborted != "" {
		return "not applied: " + g.Aborted
	}
	return "not applied: the group's change failed (see the error)"
}

// Plan is the reset plan of every group, in the order named.
type Plan struct {
	Groups []GroupPlan
	// Warnings are lines for stderr (a time with no later record, file
	// rows outside the scope, active groups skipped by --all-groups).
	Warnings []string
}

// TimeOffset is the first offset at or after a timestamp (ListOffsets by
// time); Timestamp is -1 when the partition has no such record and Offset
// is then the log end.
type TimeOffset struct {
	Offset    int64
	Timestamp int64
	Err       error
}

// ResetInput is everything PlanReset needs, gathered beforehand.
type ResetInput struct {
	Snapshot *lag.Snapshot
	// Groups are the groups to reset, in order. With --all-groups these
	// are the listed groups, and AllGroups is set.
	Groups    []string
	AllGroups bool
	Target    Target
	Scope     lag.Scope
	AllTopics bool
	// Times holds ListOffsets-by-time results for ToTime.
	Times lag.PartitionMap[TimeOffset]
	// File is the parsed plan for ToFile.
	File *PlanFile
	// GroupsFromFile: Groups are the plan file's (see ResetRequest).
	GroupsFromFile bool
}

// StreamsRefusal is why offsetctl changes no Kafka Streams group (KIP-1071)
// (reset, delete-offsets, delete-group): an application's position is its
// source offsets and its state stores and internal topics together, and
// moving or deleting the offsets alone would leave them disagreeing.
const StreamsRefusal = "is a Kafka Streams group (KIP-1071): offsetctl does not change its offsets, since its state stores and internal topics would not follow; stop the application and use kafka-streams-groups.sh (--reset-offsets, --delete-offsets, --delete)"

// LiveGroupReason returns why a group counts as live for the guard, or ""
// when it may be reset: a classic group not Empty/Dead, a KIP-848 group with
// any member.
func LiveGroupReason(gi lag.GroupInfo) string {
	return LiveGroupReasonTo(gi, "reset")
}

// LiveGroupReasonTo is LiveGroupReason in the words of the change the
// guard stops ("deleted": delete-group's).
func LiveGroupReasonTo(gi lag.GroupInfo, verb string) string {
	if r := liveReasonTo(gi, verb); r != "" {
		return "group " + gi.Group + " " + r
	}
	return ""
}

// liveReason is LiveGroupReason without the group's name in front.
func liveReason(gi lag.GroupInfo) string { return liveReasonTo(gi, "reset") }

// liveReasonTo is liveReason with the change's verb ("can only be VERB if
// the group is inactive").
func liveReasonTo(gi lag.GroupInfo, verb string) string {
	if gi.IsShare() {
		return shareLiveReason(gi)
	}
	if gi.Type == "streams" {
		return StreamsRefusal
	}
	if !gi.IsConsumer() {
		// A Kafka Connect worker group (protocol type connect) or the like:
		// "stop its consumers" would send the operator the wrong way.
		return fmt.Sprintf("is not a consumer group but a classic group of protocol type %s (a Kafka Connect worker group when connect): it keeps no consumer offsets to change", safetext.Name(gi.ProtocolType))
	}
	n := len(gi.Members)
	if gi.Type == "consumer" {
		if n == 0 {
			return ""
		}
	} else {
		switch gi.State {
		case "Empty", "Dead", "":
			if n == 0 {
				return ""
			}
		}
	}
	return fmt.Sprintf("can only be %s if the group is inactive, but the current state is %s (%s)", verb, gi.State, textlist.Count(n, "member")) + stopAdvice
}

// stopAdvice ends the reason of a group with live members: what the
// operator does about it (the live check before EndTxn takes it off to
// give its own advice once, at the end of its message).
const stopAdvice = "; stop its consumers first"

// PlanReset computes the reset plan of every group from gathered data. It
// does no I/O. A returned error is bad input (exitcode.Usage) naming what was wrong
// (unknown topic or partition, shift without a commit, a file plan without
// rows for a group); operational failures land in GroupPlan.Error and
// PartitionPlan.Error.
func PlanReset(in ResetInput) (Plan, error) {
	var plan Plan
	if in.Target.NeedsScope() && in.Scope.Empty() && !in.AllTopics {
		return plan, exitcode.Usagef("name a scope: --topic TOPIC[:P,...] or --all-topics")
	}
	if in.Target.FromRows() && in.File == nil {
		return plan, exitcode.Usagef("file plan not loaded")
	}
	if in.Target.Kind == ToFile && in.File.Columns == 3 && len(in.Groups) != 1 {
		return plan, exitcode.Usagef("plan %s has topic,partition,offset rows, which apply to one group; name exactly one group or use group,topic,partition,offset rows", in.Target.Path)
	}
	var other *lag.GroupSnapshot
	if in.Target.Kind == ToGroup {
		o, ok := in.Snapshot.Group(in.Target.Group)
		if !ok {
			return plan, exitcode.Usagef("group %s (to copy from) was not gathered", safetext.Arg(in.Target.Group))
		}
		if o.Err != nil || o.CommitErr != nil {
			return plan, fmt.Errorf("group %s (to copy from): %v", safetext.Arg(in.Target.Group), cmp.Or(o.Err, o.CommitErr))
		}
		other = o
	}
	groups := in.Groups
	fileGroups := in.Target.Kind == ToFile && in.AllGroups && in.File.Columns == 4
	if fileGroups {
		// --all-groups with a group,topic,partition,offset plan: the
		// cluster's groups that the plan has rows for.
		groups = nil
		for _, name := range in.Groups {
			if len(in.File.RowsFor(name)) > 0 {
				groups = append(groups, name)
			}
		}
	}
	for _, name := range groups {
		if err := CheckGroupName(name); err != nil {
			if in.AllGroups {
				plan.Warnings = append(plan.Warnings, "skipping "+err.Error())
				// Listed too, as every group a selection skips is: a
				// reader of the table or the JSON sees it was left out.
				plan.Groups = append(plan.Groups, GroupPlan{Group: name, Note: "skipped: " + UnbackableReason(name), Partitions: []PartitionPlan{}})
				continue
			}
			return plan, err
		}
		g, ok := in.Snapshot.Group(name)
		if !ok {
			return plan, exitcode.Usagef("group %s was not gathered", safetext.Arg(name))
		}
		gp, warns, err := planGroup(in, g, other)
		if err != nil {
			return plan, err
		}
		plan.Warnings = append(plan.Warnings, warns...)
		plan.Groups = append(plan.Groups, gp)
	}
	if (fileGroups || in.GroupsFromFile) && !in.Scope.Empty() && len(plan.Groups) > 0 && allSkippedForScope(plan) {
		return plan, exitcode.Usagef("plan %s has no rows inside the --topic scope", in.Target.Path)
	}
	if other != nil && len(plan.Groups) > 0 && !copiesAnything(plan) {
		return plan, exitcode.Usagef("group %s (to copy from) has no commit on any selected partition: nothing to copy (is it the right group? lag %s shows its partitions)", safetext.Arg(other.Group), safetext.Shell(other.Group))
	}
	for _, name := range in.Snapshot.SkippedShare {
		if fileGroups && len(in.File.RowsFor(name)) == 0 {
			continue // not in the plan file: nothing of it was asked for
		}
		// Listed as an active group is, with no rows: nothing is backed
		// up or changed (executeReset skips a plan without partitions).
		plan.Groups = append(plan.Groups, GroupPlan{Group: name, GroupType: lag.ShareType, Note: "skipped: share group: " + lag.ShareSkipped("reset it"), Partitions: []PartitionPlan{}})
		plan.Warnings = append(plan.Warnings, lag.ShareSkipWarning(name, "reset it"))
	}
	if fileGroups {
		if w := unappliedFileGroups(in.File, plan, in.Target.Path); w != "" {
			plan.Warnings = append(plan.Warnings, w)
		}
	}
	return plan, nil
}

// noteNoRowsInScope is the note of a group of a file plan skipped because
// --topic keeps none of its rows.
const noteNoRowsInScope = "skipped: no plan rows inside the --topic scope"

// allSkippedForScope reports whether every group of a --all-groups file
// plan was skipped for having no rows inside --topic.
func allSkippedForScope(plan Plan) bool {
	for _, gp := range plan.Groups {
		if gp.Note != noteNoRowsInScope {
			return false
		}
	}
	return true
}

// copiesAnything reports whether a group:OTHER plan takes at least one
// offset from the other group (or meets an error on the way).
func copiesAnything(plan Plan) bool {
	judged := false
	for _, gp := range plan.Groups {
		if gp.Error != "" {
			return true // a failure is reported as such
		}
		if strings.HasPrefix(gp.Note, "skipped") {
			continue // an active group skipped by --all-groups says nothing
		}
		judged = true
		for _, pp := range gp.Partitions {
			if pp.Target != nil || pp.Error != "" {
				return true
			}
		}
	}
	return !judged
}

// unappliedFileGroups names the groups of a plan file that --all-groups
// or --regex does not reset (not selected: not among the cluster's
// groups, or left out by --regex or --exclude, which the plan cannot tell
// apart; or skipped as active), so their rows are not silently dropped;
// "" when there are none. It said "no such consumer group" of a group the
// selection left out.
func unappliedFileGroups(pf *PlanFile, plan Plan, path string) string {
	planned := map[string]GroupPlan{}
	for _, gp := range plan.Groups {
		planned[gp.Group] = gp
	}
	var out []string
	for _, name := range pf.GroupsIn() {
		gp, ok := planned[name]
		switch {
		case !ok:
			out = append(out, name+" (not selected: no such consumer group, or left out by --regex or --exclude; name it to reset it)")
		case strings.HasPrefix(gp.Note, "skipped"):
			out = append(out, name+" ("+gp.Note+")")
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("plan %s: the rows of %d group(s) were not applied: %s", path, len(out), strings.Join(out, ", "))
}

// planGroup plans one group in two steps: the scope (which partitions)
// and the target (where each goes).
func planGroup(in ResetInput, g *lag.GroupSnapshot, other *lag.GroupSnapshot) (GroupPlan, []string, error) {
	if err := shareFileMismatch(in.File, g); err != nil {
		return GroupPlan{}, nil, err
	}
	if g.IsShare() {
		if err := shareTargetErr(in.Target, g.Group); err != nil {
			return GroupPlan{}, nil, err
		}
	}
	gp, warns, stop := planGroupState(in, g)
	if g.IsShare() {
		gp.GroupType, gp.Atomic = lag.ShareType, new(false)
		gp.Note = lag.JoinNote(gp.Note, NoteShareReset)
	}
	if stop {
		return gp, warns, nil
	}
	sc, err := planScope(in, g)
	if err != nil {
		return gp, nil, err
	}
	if sc.skip {
		gp.Note = noteNoRowsInScope
		return gp, sc.warns, nil
	}
	warns = append(warns, sc.warns...)
	t := targeter{in: in, g: g, other: other, fileRows: sc.fileRows}
	_, t.isBackup = in.File.backupOf(g.Group)
	for _, k := range sc.keys {
		pp, err := t.partition(k)
		if err != nil {
			return gp, nil, err
		}
		gp.Partitions = append(gp.Partitions, pp)
	}
	if g.IsShare() {
		planShareDeletes(&gp, g)
		planShareUndo(&gp, g)
		warns = append(warns, planShareAcked(&gp, g)...)
	}
	if in.AllGroups && g.Exists && !g.IsShare() && !in.AllTopics && !in.Target.FromRows() {
		if topics := firstCommitTopics(gp.Partitions); len(topics) > 0 {
			what := safetext.List(topics, 3)
			gp.Note = lag.JoinNote(gp.Note, "no commit on "+what+" before: the reset creates its offsets there")
			warns = append(warns, fmt.Sprintf("group %s has no commit on topic %s: the reset creates its offsets there, where it would start if it ever reads it (not from its auto.offset.reset); select the groups that read it with -r or --exclude to leave it out", safetext.Arg(g.Group), what))
		}
	}
	return gp, append(warns, t.warnings()...), nil
}

// firstCommitTopics are the topics of a plan where the group has no
// commit on any partition and the plan commits some: a selection
// (--all-groups, --regex) with --topic gives every selected group offsets
// on the topic, as Apache's tool does, also a group that never read it.
// Said, so that it is not done unseen.
func firstCommitTopics(pps []PartitionPlan) []string {
	had, sets := map[string]bool{}, map[string]bool{}
	for _, pp := range pps {
		if pp.Current != nil {
			had[pp.Topic] = true
		}
		if pp.Action == ActCommit && pp.Target != nil {
			sets[pp.Topic] = true
		}
	}
	var out []string
	for t := range sets {
		if !had[t] {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// planGroupState starts a group's plan from its state: an error describing
// it, or a live group, which --all-groups skips (stop) and a named reset
// refuses.
func planGroupState(in ResetInput, g *lag.GroupSnapshot) (gp GroupPlan, warns []string, stop bool) {
	gp = GroupPlan{Group: g.Group, State: g.State, Type: g.Type, Members: len(g.Members), Partitions: []PartitionPlan{}}
	if !g.Exists {
		gp.State = "Dead"
		gp.Note = "group does not exist: the reset creates its offsets"
		if !in.Target.FromRows() {
			// Named and missing: most often a typo, which the dry run's
			// table alone (CURRENT -) did not make plain. A restore
			// (--to file:, undo) of a deleted group means to create it.
			warns = append(warns, "group "+safetext.Arg(g.Group)+" does not exist: --execute creates it with these offsets (a typo? offsetctl groups lists the groups)")
		}
	}
	switch {
	case g.Err != nil:
		gp.Error = fmt.Sprintf("describing group %s: %v", safetext.Arg(g.Group), g.Err)
		return gp, nil, true
	case g.CommitErr != nil:
		gp.Error = fmt.Sprintf("fetching committed offsets of group %s: %v", safetext.Arg(g.Group), g.CommitErr)
		return gp, nil, true
	}
	if reason := liveReason(g.GroupInfo); reason != "" {
		if in.AllGroups {
			// --all-groups resets the groups it can, as Apache's tool
			// does: an active group is skipped, not refused.
			gp.Note = "skipped: active group (" + g.State + ")"
			gp.SkippedLive = g.Type != "streams" && (g.IsShare() || g.IsConsumer()) && touchesScope(in, g)
			return gp, []string{"skipping group " + safetext.Arg(g.Group) + ": it " + reason}, true
		}
		gp.Refused = "group " + g.Group + " " + reason
	}
	return gp, warns, false
}

// touchesScope reports whether a live group that a selection skipped had
// something of its own in the scope: a plan file's rows, or a commit on a
// scoped partition (every commit, with --all-topics). Skipping such a group
// leaves undone what was asked; a live group with no commit there (it does
// not read the topic) was never the operator's target.
func touchesScope(in ResetInput, g *lag.GroupSnapshot) bool {
	if in.Target.FromRows() {
		for _, r := range in.File.RowsFor(g.Group) {
			if in.Scope.Empty() || in.Scope.Has(r.Topic, r.Partition) {
				return true
			}
		}
		return false
	}
	if in.AllTopics {
		return len(g.Commits) > 0 || len(g.NoStart) > 0
	}
	found := false
	g.Commits.Each(func(t string, p int32, _ lag.Commit) {
		found = found || in.Scope.Has(t, p)
	})
	return found
}

// groupScope is the scope step's answer for one group.
type groupScope struct {
	keys     []lag.TP           // the partitions to plan, by topic then partition
	fileRows map[lag.TP]PlanRow // a file plan's row of each key
	warns    []string
	skip     bool // a file plan has no rows for the group inside --topic: skip it
}

// planScope picks the partitions to plan: a file plan's rows (inside
// --topic), every committed partition (--all-topics), or the named topics'
// partitions.
func planScope(in ResetInput, g *lag.GroupSnapshot) (groupScope, error) {
	var sc groupScope
	var err error
	switch {
	case in.Target.FromRows():
		sc, err = fileScope(in, g)
	case in.AllTopics:
		if len(g.Commits) == 0 && len(g.NoStart) == 0 && !in.AllGroups {
			// A named group without commits: the scope is empty, which
			// is never what was meant (--all-groups just skips it).
			if !g.Exists {
				return sc, exitcode.Usagef("group %s does not exist (no committed offsets), so --all-topics selects nothing: name the partitions with --topic TOPIC[:P,...] to create its offsets", safetext.Arg(g.Group))
			}
			return sc, exitcode.Usagef("group %s has no committed offsets, so --all-topics selects nothing: name the partitions with --topic TOPIC[:P,...]", safetext.Arg(g.Group))
		}
		g.Commits.Each(func(t string, p int32, _ lag.Commit) { sc.keys = append(sc.keys, lag.TP{Topic: t, Partition: p}) })
		sc.keys = append(sc.keys, g.NoStart...)
	default:
		sc.keys, err = namedScope(in)
	}
	slices.SortFunc(sc.keys, lag.CompareTP)
	return sc, err
}

// lineOf is "line N " for a row read from a plan file, "" for one built
// in memory (translated:ALIAS has no file and no lines).
func lineOf(r PlanRow) string {
	if r.Line > 0 {
		return fmt.Sprintf("line %d ", r.Line)
	}
	return ""
}

// fileScope is the plan file's rows for the group, inside --topic if given.
func fileScope(in ResetInput, g *lag.GroupSnapshot) (groupScope, error) {
	sc := groupScope{fileRows: map[lag.TP]PlanRow{}}
	rows := in.File.RowsFor(g.Group)
	if len(rows) == 0 {
		return sc, exitcode.Usagef("plan %s has no rows for group %s", in.Target.Path, safetext.Arg(g.Group))
	}
	inside, out := in.File.ScopeRows(g.Group, in.Scope)
	for _, r := range inside {
		k := lag.TP{Topic: r.Topic, Partition: r.Partition}
		sc.fileRows[k] = r
		sc.keys = append(sc.keys, k)
	}
	var outside []string
	for _, r := range out {
		outside = append(outside, lineOf(r)+fmt.Sprintf("%s/%d", r.Topic, r.Partition))
	}
	if len(sc.keys) == 0 {
		if in.AllGroups || in.GroupsFromFile {
			// Restoring one topic from a whole-cluster backup: the
			// groups without rows there are not part of it.
			sc.skip = true
			if !in.AllGroups { // --all-groups lists it with the file's unapplied groups
				sc.warns = []string{fmt.Sprintf("group %s: none of its %d plan row(s) is inside the --topic scope: skipped", safetext.Arg(g.Group), len(rows))}
			}
			return sc, nil
		}
		return sc, exitcode.Usagef("plan %s has %d row(s) for group %s, none inside the --topic scope", in.Target.Path, len(rows), safetext.Arg(g.Group))
	}
	if len(outside) > 0 {
		sc.warns = append(sc.warns, fmt.Sprintf("group %s: --topic keeps %d of the plan's %d row(s); skipped %s", safetext.Arg(g.Group), len(sc.keys), len(rows), shortList(outside)))
	}
	return sc, nil
}

// namedScope is the partitions --topic names, every partition of a bare
// topic; each must exist.
func namedScope(in ResetInput) ([]lag.TP, error) {
	var keys []lag.TP
	for _, t := range in.Scope.TopicNames() {
		if err := in.Snapshot.Offsets.TopicErr[t]; err != nil {
			return nil, lag.TopicFailure(err)
		}
		parts, ok := in.Snapshot.Offsets.Partitions[t]
		if !ok {
			return nil, exitcode.Usagef("topic %s does not exist", t)
		}
		if want := in.Scope.Topics[t]; want != nil {
			for _, p := range want {
				if _, ok := parts[p]; !ok {
					return nil, exitcode.Usagef("partition %d does not exist in topic %s (it has %d partitions)", p, t, len(parts))
				}
				keys = append(keys, lag.TP{Topic: t, Partition: p})
			}
			continue
		}
		for p := range parts {
			keys = append(keys, lag.TP{Topic: t, Partition: p})
		}
	}
	return keys, nil
}

// targeter is the target step of one group: where each partition of its
// scope goes.
type targeter struct {
	in       ResetInput
	g, other *lag.GroupSnapshot
	fileRows map[lag.TP]PlanRow
	isBackup bool     // the plan file is offsetctl's backup of this group
	noRecord []string // partitions with no record at or after a time
	noSource []string // partitions the group to copy from has no commit on
}

// partition plans one partition: its commit and log offsets, then the
// target, clamped to the log unless restoring a backup.
func (t *targeter) partition(k lag.TP) (PartitionPlan, error) {
	pp := PartitionPlan{Topic: k.Topic, Partition: k.Partition, LogStart: -1, LogEnd: -1}
	if c, ok := t.g.Commits[k.Topic][k.Partition]; ok {
		if c.Err != nil {
			pp.Error = fmt.Sprintf("committed offset: %v", c.Err)
		} else {
			cur := c.Offset
			pp.Current = &cur
		}
	}
	po, err := t.logOffsets(k, &pp)
	if err != nil || pp.Error != "" {
		return pp, err
	}
	want, clamp, err := t.want(k, &pp, po)
	if err != nil || pp.Error != "" || pp.Action != ActCommit {
		return pp, err
	}
	if clamp {
		switch {
		case want > po.End:
			pp.Note = lag.JoinNote(pp.Note, fmt.Sprintf("clamped to log end (asked %d)", want))
			want = po.End
		case want < po.Start:
			pp.Note = lag.JoinNote(pp.Note, fmt.Sprintf("clamped to log start (asked %d)", want))
			want = po.Start
		}
	} else if t.in.Target.Kind == ToFile {
		switch {
		case want > po.End:
			pp.Note = lag.JoinNote(pp.Note, "restored as backed up: past the log end")
		case want < po.Start:
			pp.Note = lag.JoinNote(pp.Note, "restored as backed up: below the log start")
		}
	}
	pp.Target = &want
	if pp.Current != nil {
		d := want - *pp.Current
		pp.Delta = &d
	}
	return pp, nil
}

// logOffsets looks up k's log start and end; a partition that does not
// exist is bad input, one that could not be listed is the row's Error.
func (t *targeter) logOffsets(k lag.TP, pp *PartitionPlan) (lag.PartitionOffsets, error) {
	in, g := t.in, t.g
	po, ok, terr := in.Snapshot.Offsets.Lookup(k.Topic, k.Partition)
	switch {
	case terr != nil:
		return po, lag.TopicFailure(fmt.Errorf("group %s: %w", safetext.Arg(g.Group), terr))
	case !ok:
		if _, known := in.Snapshot.Offsets.Partitions[k.Topic]; !known && !in.Target.FromRows() && !in.AllTopics {
			return po, exitcode.Usagef("topic %s does not exist", k.Topic)
		}
		where := "group " + safetext.Arg(g.Group)
		if r, ok := t.fileRows[k]; ok && r.Line > 0 { // 0: rows not from a file (translated:ALIAS)
			where = fmt.Sprintf("plan %s line %d (group %s)", in.Target.Path, r.Line, safetext.Arg(g.Group))
		}
		if parts, known := in.Snapshot.Offsets.Partitions[k.Topic]; known {
			return po, exitcode.Usagef("%s: partition %d does not exist in topic %s (it has %d partitions)", where, k.Partition, k.Topic, len(parts))
		}
		return po, exitcode.Usagef("%s: partition %d does not exist in topic %s", where, k.Partition, k.Topic)
	case po.Err != nil:
		pp.Error = fmt.Sprintf("listing offsets: %v", po.Err)
	default:
		pp.LogStart, pp.LogEnd = po.Start, po.End
	}
	return po, nil
}

// want is the offset the target asks for k, and whether it is clamped to
// the log. A row it settles otherwise gets an Error, or an Action other
// than ActCommit.
func (t *targeter) want(k lag.TP, pp *PartitionPlan, po lag.PartitionOffsets) (want int64, clamp bool, err error) {
	switch t.in.Target.Kind {
	case ToEarliest:
		return po.Start, true, nil
	case ToLatest:
		return po.End, true, nil
	case ToCurrent:
		if pp.Current != nil {
			return *pp.Current, false, nil
		}
		pp.Note = "no commit: log end, as Apache's --to-current does"
		return po.End, true, nil
	case ToOffset:
		return t.in.Target.Offset, true, nil
	case ToShift:
		if pp.Current == nil {
			return 0, false, exitcode.Usagef("group %s: cannot shift %s partition %d: the group has no committed offset there", safetext.Arg(t.g.Group), k.Topic, k.Partition)
		}
		return satAdd(*pp.Current, t.in.Target.Shift), true, nil
	case ToTime:
		return t.timeTarget(k, pp, po), true, nil
	case ToFile, ToTranslated:
		r := t.fileRows[k]
		if r.NoCommit {
			pp.Action, pp.Note = ActDelete, "restore: had no commit (offset deleted)"
			if pp.Current == nil {
				pp.Action, pp.Note = ActSkip, "restore: had no commit, has none"
			}
			return 0, false, nil
		}
		return r.Offset, !t.isBackup, nil
	case ToGroup:
		return t.groupTarget(k, pp), true, nil
	}
	return 0, true, nil
}

// timeTarget is the first offset at or after the target time, else the
// log end (as Apache does).
func (t *targeter) timeTarget(k lag.TP, pp *PartitionPlan, po lag.PartitionOffsets) int64 {
	to, ok := t.in.Times[k.Topic][k.Partition]
	switch {
	case !ok:
		pp.Error = "no offset listed for the time"
	case to.Err != nil:
		pp.Error = fmt.Sprintf("listing offsets by time: %v", to.Err)
	case to.Timestamp < 0 || to.Offset < 0 || to.Offset >= po.End:
		pp.Note = "no record at or after the time: log end"
		t.noRecord = append(t.noRecord, fmt.Sprintf("%s/%d", k.Topic, k.Partition))
		return po.End
	default:
		return to.Offset
	}
	return 0
}

// groupTarget is the other group's commit; a partition it has none on is
// left unchanged.
func (t *targeter) groupTarget(k lag.TP, pp *PartitionPlan) int64 {
	c, ok := t.other.Commits[k.Topic][k.Partition]
	switch {
	case ok && c.Err != nil:
		pp.Error = fmt.Sprintf("committed offset of group %s: %v", safetext.Arg(t.other.Group), c.Err)
	case !ok:
		pp.Action = ActSkip
		pp.Note = fmt.Sprintf("group %s has no commit here: left unchanged", safetext.Arg(t.other.Group))
		t.noSource = append(t.noSource, fmt.Sprintf("%s/%d", k.Topic, k.Partition))
	default:
		return c.Offset
	}
	return 0
}

// warnings sums up the partitions the target could not place exactly.
func (t *targeter) warnings() []string {
	var warns []string
	g := safetext.Arg(t.g.Group)
	if len(t.noRecord) > 0 {
		warns = append(warns, fmt.Sprintf("group %s: no record at or after %s in %d partition(s) (%s): using their log end, as Apache does", g, FormatTime(time.UnixMilli(t.in.Target.Millis)), len(t.noRecord), shortList(t.noRecord)))
	}
	if len(t.noSource) > 0 {
		warns = append(warns, fmt.Sprintf("group %s: %d partition(s) left unchanged: group %s has no commit there (%s)", g, len(t.noSource), safetext.Arg(t.other.Group), shortList(t.noSource)))
	}
	return warns
}

// shortList joins the first five items and counts the rest.
func shortList(items []string) string { return textlist.Short(items, 5, ", ") }

func satAdd(a, b int64) int64 {
	c := a + b
	if b > 0 && c < a {
		return 1<<63 - 1
	}
	if b < 0 && c > a {
		return -1 << 63
	}
	return c
}

// ScopeRows splits the rows of pf that apply to group (RowsFor) into
// those inside scope (every row, when it is empty) and those outside it.
// A reset --to file: plans the partitions of the rows inside (fileScope),
// whatever each then does (a commit, a delete, or nothing: "had no
// commit, has none"): so they are what a restore of a backup may write,
// and undo checks the changes recorded later against them.
func (pf *PlanFile) ScopeRows(group string, scope lag.Scope) (in, outside []PlanRow) {
	for _, r := range pf.RowsFor(group) {
		if !scope.Empty() && !scope.Has(r.Topic, r.Partition) {
			outside = append(outside, r)
			continue
		}
		in = append(in, r)
	}
	return in, outside
}

func (pf *PlanFile) backupOf(group string) (int64, bool) {
	if pf == nil {
		return 0, false
	}
	ms, ok := pf.Backups[group]
	return ms, ok
}

// Errors lists every group and partition error of the plan, one line each
// naming the group, topic and partition.
func (p Plan) Errors() []string {
	var out []string
	for _, g := range p.Groups {
		if g.Error != "" {
			out = append(out, g.Error)
		}
		for _, pp := range g.Partitions {
			if pp.Error != "" {
				out = append(out, fmt.Sprintf("group %s topic %s partition %d: %s", safetext.Arg(g.Group), pp.Topic, pp.Partition, pp.Error))
			}
		}
	}
	return out
}

// GroupErrors is Errors for a summary line after --execute: one item per
// group and cause, not per partition. A group with an error of its own (a
// fenced or aborted transaction) is that error alone, since its partitions
// only repeat it; otherwise its partitions that failed the same way share
// one item, "group G: N partitions (t/0, t/1 and 3 more): ERR". The table
// and the audit entry keep every partition's error.
func (p Plan) GroupErrors() []string {
	var out []string
	for _, g := range p.Groups {
		if g.Error != "" {
			out = append(out, g.Error)
			continue
		}
		var causes []string
		byCause := map[string][]PartitionPlan{}
		for _, pp := range g.Partitions {
			if pp.Error == "" {
				continue
			}
			if _, ok := byCause[pp.Error]; !ok {
				causes = append(causes, pp.Error)
			}
			byCause[pp.Error] = append(byCause[pp.Error], pp)
		}
		for _, c := range causes {
			pps := byCause[c]
			if len(pps) == 1 {
				out = append(out, fmt.Sprintf("group %s topic %s partition %d: %s", safetext.Arg(g.Group), pps[0].Topic, pps[0].Partition, c))
				continue
			}
			tps := make([]string, len(pps))
			for i, pp := range pps {
				tps[i] = fmt.Sprintf("%s/%d", pp.Topic, pp.Partition)
			}
			out = append(out, fmt.Sprintf("group %s: %d partitions (%s): %s", safetext.Arg(g.Group), len(pps), textlist.Short(tps, 5, ", "), c))
		}
	}
	return out
}

// Changes counts the group's partitions whose committed offset the plan
// changes (a new offset, a commit where there was none, a deleted commit)
// and those it leaves as they were (same offset, or no commit kept).
func (g GroupPlan) Changes() (changed, unchanged int) {
	for _, pp := range g.Partitions {
		switch {
		case pp.Action == ActDelete,
			pp.Action == ActCommit && pp.Target != nil && (pp.Current == nil || *pp.Current != *pp.Target):
			changed++
		default:
			unchanged++
		}
	}
	return changed, unchanged
}

// Refusals lists the guard's refusals.
func (p Plan) Refusals() []string {
	var out []string
	for _, g := range p.Groups {
		if g.Refused != "" {
			out = append(out, g.Refused)
		}
	}
	return out
}

// SkippedLive names the groups a selection skipped for their live
// members (GroupPlan.SkippedLive), in plan order.
func (p Plan) SkippedLive() []string {
	var out []string
	for _, g := range p.Groups {
		if g.SkippedLive {
			out = append(out, g.Group)
		}
	}
	return out
}

// HasWork reports whether any group of the plan has partitions to change.
func (p Plan) HasWork() bool {
	for _, g := range p.Groups {
		if len(g.Partitions) > 0 {
			return true
		}
	}
	return false
}

// BackupOf returns the pre-change state of the plan's partitions: the
// committed offset of every planned partition, or a no-commit row.
func (g GroupPlan) BackupOf() BackupGroup {
	bg := BackupGroup{Group: g.Group, Share: g.Type == lag.ShareType}
	for _, pp := range g.Partitions {
		r := PlanRow{Group: g.Group, Topic: pp.Topic, Partition: pp.Partition}
		if pp.Current != nil {
			r.Offset = *pp.Current
		} else {
			r.NoCommit = true
		}
		bg.Rows = append(bg.Rows, r)
	}
	for _, r := range g.BackupExtra {
		r.Group = g.Group
		bg.Rows = append(bg.Rows, r)
	}
	return bg
}

// ExportRows returns the plan's targets as plan rows (for --export): one
// row per committed target; deletions as no-commit rows.
func (p Plan) ExportRows() []PlanRow {
	var out []PlanRow
	for _, g := range p.Groups {
		for _, pp := range g.Partitions {
			switch {
			case pp.Action == ActDelete:
				out = append(out, PlanRow{Group: g.Group, Topic: pp.Topic, Partition: pp.Partition, NoCommit: true})
			case pp.Action == ActCommit && pp.Target != nil:
				out = append(out, PlanRow{Group: g.Group, Topic: pp.Topic, Partition: pp.Partition, Offset: *pp.Target})
			}
		}
	}
	return out
}

// SafeFileName turns a group name into something usable in a file name.
func SafeFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 100 {
		out = out[:100]
	}
	if out == "" || out == "." || out == ".." {
		out = "group"
	}
	return out
}
