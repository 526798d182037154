package semantics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/replay"
)

// PartitionOffset is a committed offset.
type PartitionOffset struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// ModeResult is one row of the experiment.
type ModeResult struct {
	Mode       Mode   `json:"mode"`
	Group      string `json:"group"`
	Processed  int    `json:"processed"`
	Unique     int    `json:"unique"`
	Duplicates int    `json:"duplicates"`
	Lost       int    `json:"lost"`
	// LostEvents are the numbers of the events never processed.
	LostEvents []int `json:"lost_events"`
	// CommittedAtCrash is the group's committed offsets right after the
	// crash, before the restart.
	CommittedAtCrash []PartitionOffset `json:"committed_at_crash"`
	// CommittedAfter is the group's final committed offsets.
	CommittedAfter []PartitionOffset `json:"committed_after"`
	Explanation    string            `json:"explanation"`
	// Log is the processed log (only when it is kept).
	Log string `json:"log,omitempty"`
}

// ReplayResult is the closing group-less replay from offset 0.
type ReplayResult struct {
	FromOffset int64 `json:"from_offset"`
	Records    int64 `json:"records"`
	// AllEvents is true when the replay read every produced event.
	AllEvents bool   `json:"all_events"`
	Digest    string `json:"digest"`
	// CommittedUnchanged is true when no group's committed offsets moved
	// during the replay.
	CommittedUnchanged bool                `json:"committed_unchanged"`
	Verification       replay.Verification `json:"verification"`
}

// Result is a finished experiment.
type Result struct {
	Events         int           `json:"events"`
	Batch          int           `json:"batch"`
	CrashAfter     int           `json:"crash_after"`
	Partitions     int           `json:"partitions"`
	WorkDelay      string        `json:"work_delay"`
	CommitInterval string        `json:"commit_interval"`
	Topic          string        `json:"topic"`
	Kept           bool          `json:"kept"`
	Results        []ModeResult  `json:"results"`
	Replay         *ReplayResult `json:"replay"`
	ElapsedMs      int64         `json:"elapsed_ms"`
}

// workerInstanceID is the static member identity of every worker: the
// restarted worker of a group takes over the crashed one's membership.
const workerInstanceID = "offsetctl-semantics-worker"

// Run runs the experiment on the cluster of cfg: create and fill a scratch
// topic, run every mode (crash, restart), replay from offset 0 without a
// group and prove no committed offset moved, then delete what it created
// unless o.Keep (also after a failure or an interrupt).
func Run(ctx context.Context, cfg cluster.Config, o Options) (res *Result, err error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, exitcode.AsUsage(err)
	}
	if o.Launcher == nil {
		return nil, errors.New("semantics: no worker launcher")
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	started := time.Now()

	adm, err := cfg.NewAdmin()
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	if err := precheck(ctx, cfg, adm, o, timeout, progress); err != nil {
		return nil, err
	}
	topic := scratchTopic(o)
	logDir, removeLogs, err := prepareLogDir(o)
	if err != nil {
		return nil, err
	}

	var groups []string
	var created bool
	defer func() {
		if removeLogs {
			_ = os.RemoveAll(logDir)
		}
		if !o.Keep && created {
			removeScratch(ctx, adm, topic, groups, timeout, progress)
		}
	}()

	events := Layout(o.Events, o.Partitions)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	err = createAndFill(cctx, cfg, adm, topic, o.Partitions, events)
	cancel()
	// A failed create may still have created it; a topic that already
	// existed is not ours to delete.
	created = !errors.Is(err, kerr.TopicAlreadyExists)
	if err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("topic %s: %d events over %d partitions (events %s)", topic, o.Events, o.Partitions, layoutSummary(events, o.Partitions)))

	res = newResult(o, topic)
	for _, m := range o.Modes {
		groups = append(groups, topic+"-"+string(m))
	}
	if err := runModes(ctx, cfg, adm, o, res, topic, groups, events, logDir, progress); err != nil {
		return nil, err
	}
	if !o.NoReplay {
		rr, err := closingReplay(ctx, cfg, topic, groups, o.Events)
		res.Replay = rr
		if err != nil {
			res.ElapsedMs = time.Since(started).Milliseconds()
			return res, err
		}
		progress(fmt.Sprintf("replay from offset 0 without a group: %d of %d events read; committed offsets of %d group(s) unchanged", rr.Records, o.Events, len(groups)))
	}
	res.ElapsedMs = time.Since(started).Milliseconds()
	return res, nil
}

// newResult is the result of the run of o on topic before any mode ran.
func newResult(o Options, topic string) *Result {
	return &Result{
		Events: o.Events, Batch: o.Batch, CrashAfter: o.CrashAfter, Partitions: o.Partitions,
		WorkDelay: o.WorkDelay.String(), CommitInterval: o.CommitInterval.String(),
		Topic: topic, Kept: o.Keep, Results: make([]ModeResult, len(o.Modes)),
	}
}

// precheck checks, before anything is created, that the cluster answers
// and accepts the session timeout: a refused one would only fail in the
// first worker, after the topic was created.
func precheck(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, o Options, timeout time.Duration, progress func(string)) error {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := cfg.Ping(pctx, adm); err != nil {
		return err
	}
	limits, lerr := brokerSessionLimits(pctx, adm)
	if lerr != nil {
		progress(fmt.Sprintf("warning: could not read the brokers' session timeout range (%v); the brokers will check --session-timeout %s", lerr, o.SessionTimeout))
	}
	if serr := CheckSessionTimeout(o.SessionTimeout, limits); serr != nil {
		return exitcode.AsUsage(serr)
	}
	return nil
}

// scratchTopic is o.Topic, else the prefix and a random suffix.
func scratchTopic(o Options) string {
	if o.Topic != "" {
		return o.Topic
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return fmt.Sprintf("%s-%s", o.TopicPrefix, hex.EncodeToString(suffix[:]))
}

// prepareLogDir makes the directory of the processed logs: o.LogDir, or a
// temporary one that is removed afterwards (remove) unless o.Keep.
func prepareLogDir(o Options) (dir string, remove bool, err error) {
	if o.LogDir == "" {
		dir, err = os.MkdirTemp("", "offsetctl-semantics-")
		return dir, err == nil && !o.Keep, err
	}
	if err := os.MkdirAll(o.LogDir, 0o755); err != nil {
		// Not a directory, no permission: bad input, and nothing
		// was created on the cluster yet.
		return "", false, exitcode.AsUsage(fmt.Errorf("--log-dir: %w", err))
	}
	if abs, err := filepath.Abs(o.LogDir); err == nil {
		return abs, false, nil
	}
	return o.LogDir, false, nil
}

// removeScratch deletes the scratch topic and groups, best effort, also
// after a failure or Ctrl-C: with a fresh context.
func removeScratch(ctx context.Context, adm *cluster.Admin, topic string, groups []string, timeout time.Duration, progress func(string)) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if cerr := cleanup(cctx, adm, topic, groups); cerr != nil {
		progress(fmt.Sprintf("warning: cleaning up: %v", cerr))
	} else {
		progress(fmt.Sprintf("deleted topic %s and %d group(s)", topic, len(groups)))
	}
}

// runModes runs every mode, at once or (o.Sequential) one after the
// other until one fails, into res.Results.
func runModes(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, o Options, res *Result, topic string, groups []string, events []Event, logDir string, progress func(string)) error {
	errs := make([]error, len(o.Modes))
	run := func(i int) {
		m := o.Modes[i]
		r, err := runMode(ctx, cfg, adm, o, topic, groups[i], m, events, filepath.Join(logDir, "processed-"+string(m)+".log"), progress)
		if err != nil {
			errs[i] = fmt.Errorf("%s (group %s): %w", m, groups[i], err)
			return
		}
		if !o.Keep && o.LogDir == "" {
			r.Log = ""
		}
		res.Results[i] = r
	}
	if o.Sequential {
		for i := range o.Modes {
			run(i)
			if errs[i] != nil {
				break
			}
		}
	} else {
		var wg sync.WaitGroup
		for i := range o.Modes {
			wg.Add(1)
			go func() { defer wg.Done(); run(i) }()
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

func layoutSummary(events []Event, partitions int) string {
	s := ""
	first := 0
	for p, n := range PerPartition(events, partitions) {
		if p > 0 {
			s += ", "
		}
		switch n {
		case 0:
			s += fmt.Sprintf("none on %d", p)
			continue
		case 1: // one event: "5 on 2", not "5-5 on 2"
			s += fmt.Sprintf("%d on %d", first+1, p)
		default:
			s += fmt.Sprintf("%d-%d on %d", first+1, first+int(n), p)
		}
		first += int(n)
	}
	return s
}

func createAndFill(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, topic string, partitions int, events []Event) error {
	resp, err := adm.CreateTopic(ctx, int32(partitions), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("creating scratch topic %s: %w", topic, err)
	}
	if err := adm.WaitPartitions(ctx, topic, partitions); err != nil {
		return fmt.Errorf("scratch topic %s: partitions not ready: %w", topic, err)
	}
	cl, err := cfg.NewClient(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return err
	}
	defer cl.Close()
	recs := make([]*kgo.Record, len(events))
	for i, e := range events {
		recs[i] = &kgo.Record{Topic: topic, Partition: e.Partition, Key: []byte(e.Key), Value: []byte(e.Value)}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("producing events to %s: %w", topic, err)
	}
	for i, r := range recs {
		if r.Offset != events[i].Offset {
			return fmt.Errorf("event %d landed at %s partition %d offset %d, not %d", events[i].N, topic, r.Partition, r.Offset, events[i].Offset)
		}
	}
	return nil
}

func runMode(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, o Options, topic, group string, m Mode, events []Event, logPath string, progress func(string)) (ModeResult, error) {
	r := ModeResult{Mode: m, Group: group, Log: logPath}
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		return r, fmt.Errorf("creating processed log: %w", err)
	}
	spec := WorkerSpec{
		Brokers: cfg.Brokers, ClientID: cfg.ClientID, Timeout: cfg.Timeout,
		Topic: topic, Partitions: o.Partitions, Group: group, InstanceID: workerInstanceID,
		Mode: m, Batch: o.Batch, CrashAfter: o.CrashAfter, WorkDelay: o.WorkDelay,
		CommitInterval: o.CommitInterval, SessionTimeout: o.SessionTimeout, Log: logPath,
	}

	// 1. The consumer that crashes right after event CrashAfter.
	code, stderr, err := o.Launcher.Launch(ctx, spec)
	if err != nil {
		return r, err
	}
	if code != CrashExitCode {
		return r, fmt.Errorf("the first worker exited %d instead of crashing after event %d: %s", code, o.CrashAfter, tailLine(stderr))
	}
	entries, err := readLogFile(logPath)
	if err != nil {
		return r, err
	}
	if len(entries) != o.CrashAfter {
		return r, fmt.Errorf("the first worker logged %d events before crashing, want %d", len(entries), o.CrashAfter)
	}
	at, err := committed(ctx, adm, group, topic, o.Partitions)
	if err != nil {
		return r, err
	}
	r.CommittedAtCrash = at
	progress(fmt.Sprintf("%s: crashed right after event %d with %d event(s) committed; restarting", m, o.CrashAfter, sumOffsets(at)))

	// 2. A fresh consumer in the same group, to the end of the topic.
	spec.CrashAfter = 0
	code, stderr, err = o.Launcher.Launch(ctx, spec)
	if err != nil {
		return r, err
	}
	if code != 0 {
		return r, fmt.Errorf("the restarted worker exited %d: %s", code, tailLine(stderr))
	}
	// A static member does not leave on close: remove it, as an operator
	// scaling down would, so the group is empty (and deletable).
	lctx, cancel := context.WithTimeout(ctx, cfgTimeout(cfg))
	resp, err := adm.LeaveGroup(lctx, kadm.LeaveGroup(group).InstanceIDs(workerInstanceID).Reason("offsetctl semantics: worker finished"))
	cancel()
	if err == nil {
		err = resp.Error()
	}
	if err != nil && !errors.Is(err, kerr.UnknownMemberID) {
		return r, fmt.Errorf("removing the finished static member %s: %w", workerInstanceID, err)
	}

	after, err := committed(ctx, adm, group, topic, o.Partitions)
	if err != nil {
		return r, err
	}
	r.CommittedAfter = after
	entries, err = readLogFile(logPath)
	if err != nil {
		return r, err
	}
	t := Compare(events, entries)
	if t.Unknown > 0 {
		return r, fmt.Errorf("processed log %s names %d record(s) that were never produced", logPath, t.Unknown)
	}
	r.Processed, r.Unique, r.Duplicates, r.Lost = t.Processed, t.Unique, t.Duplicates, t.Lost
	r.LostEvents = t.LostEvents
	if r.LostEvents == nil {
		r.LostEvents = []int{}
	}
	r.Explanation = Explain(m, o.CommitInterval, o.CrashAfter, sumOffsets(at), t)
	progress(fmt.Sprintf("%s: done: processed %d, unique %d, duplicates %d, lost %d", m, t.Processed, t.Unique, t.Duplicates, t.Lost))
	return r, nil
}

func cfgTimeout(cfg cluster.Config) time.Duration {
	if cfg.Timeout <= 0 {
		return 30 * time.Second
	}
	return cfg.Timeout
}

func tailLine(stderr string) string {
	if stderr == "" {
		return "(no output)"
	}
	if len(stderr) > 600 {
		stderr = "…" + stderr[len(stderr)-600:]
	}
	return stderr
}

func readLogFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := ReadLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

// committed reads the group's committed offsets of every partition of
// topic (partitions with no commit are left out).
func committed(ctx context.Context, adm *cluster.Admin, group, topic string, partitions int) ([]PartitionOffset, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := lag.FetchOffsets(ctx, adm, group)
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return nil, fmt.Errorf("fetching committed offsets of group %s: %w", group, err)
	}
	out := []PartitionOffset{}
	for p := 0; p < partitions; p++ {
		o, ok := resp.Lookup(topic, int32(p))
		if !ok || o.At < 0 {
			continue
		}
		if o.Err != nil {
			return nil, fmt.Errorf("fetching committed offset of group %s %s partition %d: %w", group, topic, p, o.Err)
		}
		out = append(out, PartitionOffset{Partition: int32(p), Offset: o.At})
	}
	return out, nil
}

func sumOffsets(os []PartitionOffset) int64 {
	var n int64
	for _, o := range os {
		n += o.Offset
	}
	return n
}

// closingReplay reads the topic from offset 0 with no group and proves
// that the groups' committed offsets did not move (the replay package).
func closingReplay(ctx context.Context, cfg cluster.Config, topic string, groups []string, events int) (*ReplayResult, error) {
	res, err := replay.Run(ctx, cfg, replay.Options{
		Topic:        topic,
		From:         replay.StartSpec{All: replay.Start{Kind: replay.StartOffset, Offset: 0}},
		Isolation:    lag.ReadCommitted,
		VerifyGroups: groups,
	})
	if res == nil {
		if err == nil {
			err = errors.New("replay returned no result")
		}
		return nil, fmt.Errorf("replay from offset 0: %w", err)
	}
	rr := &ReplayResult{
		FromOffset:         0,
		Records:            res.Records,
		AllEvents:          res.Records == int64(events),
		Digest:             res.Digest,
		CommittedUnchanged: res.Verification.Unchanged,
		Verification:       res.Verification,
	}
	if err != nil {
		return rr, fmt.Errorf("replay from offset 0: %w", err)
	}
	if !rr.AllEvents {
		return rr, fmt.Errorf("replay from offset 0 read %d records, want all %d events", res.Records, events)
	}
	if !rr.CommittedUnchanged {
		return rr, exitcode.Unverifiedf("replay from offset 0: committed offsets changed: %d change(s)", len(res.Verification.Changes))
	}
	return rr, nil
}

// cleanup deletes the scratch groups and topic.
func cleanup(ctx context.Context, adm *cluster.Admin, topic string, groups []string) error {
	var errs []error
	// A worker that failed may have left its static membership behind.
	for _, g := range groups {
		_, _ = adm.LeaveGroup(ctx, kadm.LeaveGroup(g).InstanceIDs(workerInstanceID).Reason("offsetctl semantics: cleaning up"))
	}
	if len(groups) > 0 {
		resp, err := adm.DeleteGroups(ctx, groups...)
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting groups: %w", err))
		}
		for g, r := range resp {
			if r.Err != nil && !errors.Is(r.Err, kerr.GroupIDNotFound) {
				errs = append(errs, fmt.Errorf("deleting group %s: %w", g, r.Err))
			}
		}
	}
	resp, err := adm.DeleteTopics(ctx, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		errs = append(errs, fmt.Errorf("deleting topic %s: %w", topic, err))
	}
	return errors.Join(errs...)
}
