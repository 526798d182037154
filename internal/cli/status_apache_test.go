package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestLagStatusOffsetsTopicApache: on Apache Kafka, lag --status reads
// the commits from __consumer_offsets (status_source offsets-topic, no
// fallback allowed) and judges scripted consumers, one per state: one
// lagging but gaining (OK), one committing but falling behind (WARN), one
// committing the same offset (STALL), one that stopped (STOP), one rewound
// by a raw OffsetCommit (REWIND), one reset backwards by offsetctl reset
// (OK, the audit entry named), one idle at its log end (OK). --fail-if
// status>=STOP exits 4 naming the stopped group only.
//
// The offsets-topic partitions read hold more than these groups, as on a
// shared cluster (and in the full suite): two other groups that hash to
// the same partitions commit the same topic partition up and down every
// round, an aborted transaction (TxnOffsetCommit, then EndTxn abort, as
// an offsetctl reset that fails does) stages offset 0 for the gaining and
// the stalled group, and a transaction of two other groups stays open in
// their partitions throughout. None may be taken for the groups' commits,
// nor hide them.
func TestLagStatusOffsetsTopicApache(t *testing.T) {
	if !testkit.Real() {
		t.Skip("needs a real broker (KAFKA_BROKERS): kfake keeps no readable __consumer_offsets")
	}
	c := testkit.New(t)
	busy, quiet := c.Topic(1, nil), c.Topic(1, nil)
	c.Produce(busy, map[int32]int{0: 1000}, time.Time{})
	c.Produce(quiet, map[int32]int{0: 10}, time.Time{})
	name := func(s string) string { return testkit.Name(t, "health-"+s) }
	gaining, behind, stalled, stopped, rewound, reset, idle := name("gaining"), name("behind"), name("stalled"), name("stopped"), name("rewound"), name("reset"), name("idle")
	c.Commit(idle, quiet, map[int32]int64{0: 10})

	adm := c.Admin()
	commit := func(g string, off int64) error {
		os := make(kadm.Offsets)
		os.AddOffset(busy, 0, off, -1)
		return adm.CommitAllOffsets(context.Background(), g, os)
	}
	// Noise: groups in the same offsets-topic partitions as gaining and
	// rewound (from the topic's real partition count).
	noise := []string{sameOffsetsPartition(t, c, gaining), sameOffsetsPartition(t, c, rewound)}
	// A transaction left open (a producer killed mid-reset, until its
	// timeout) in the partitions of gaining and stalled, from before
	// their first commit to after the read: a read that waited for the
	// last stable offset would see none of their commits.
	endOpen := stageTxnCommit(t, c, busy, 0, sameOffsetsPartition(t, c, gaining), sameOffsetsPartition(t, c, stalled))
	defer endOpen(false)
	// round i: 20 more records, then each consumer's commit.
	offsets := func(i int64) map[string]int64 {
		m := map[string]int64{gaining: min(10+30*i, 1000+20*(i+1)), behind: 10 + 10*i, stalled: 10, noise[0]: 950 - 900*(i%2), noise[1]: 5 + 900*(i%2)}
		switch {
		case i == 0:
			m[stopped], m[rewound], m[reset] = 10, 900, 900
		case i == 1:
			m[stopped], m[rewound], m[reset] = 15, 905, 905
		default: // rewound from 905 to 20 at round 2, then creeping on
			m[rewound], m[reset] = 18+i, 18+i
		}
		return m
	}
	round := func(i int64) error {
		c.Produce(busy, map[int32]int{0: 20}, time.Time{})
		for g, off := range offsets(i) {
			if g == reset && i == 2 {
				continue // offsetctl reset does this one
			}
			if err := commit(g, off); err != nil {
				return err
			}
		}
		return nil
	}
	for i := int64(0); i < 3; i++ {
		if err := round(i); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			mustRun(t, c, 0, "reset", reset, "--topic", busy, "--to", "20", "--execute", "--backup", t.TempDir()+"/b.csv")
			abortedTxnCommit(t, c, busy, 0, gaining, stalled)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The consumers that are alive go on committing while offsetctl reads.
	// Every 5 ms: the history, read after the report, then holds commits
	// newer than the report's (the race that made live groups look
	// rewound in the full suite).
	defer keepCommitting(t, 3, 5*time.Millisecond, round)()
	time.Sleep(time.Second) // a round or two after the stop

	groups := []string{gaining, behind, stalled, stopped, rewound, reset, idle}
	r := mustRun(t, c, 0, append([]string{"lag", "--status", "--status-source", "offsets-topic", "-o", "json"}, groups...)...)
	if !strings.Contains(r.stderr, "status: commits read from __consumer_offsets over the last 10m0s (status_source: offsets-topic)") || strings.Count(r.stderr, "status_source") != 1 {
		t.Errorf("stderr does not say the source once:\n%s", r.stderr)
	}
	var rep lag.LagReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{gaining: "OK", behind: "WARN", stalled: "STALL", stopped: "STOP", rewound: "REWIND", reset: "OK", idle: "OK"}
	why := map[string]string{behind: "lag grew from", stalled: "commits of offset 10", stopped: "no commit for", rewound: "offset went back from 905 to 20", reset: "by offsetctl reset (audit ", idle: "caught up"}
	for _, g := range rep.Groups {
		p := g.Partitions[0]
		if g.Status != want[g.Group] || p.Status != want[g.Group] || g.StatusSource != "offsets-topic" || !strings.Contains(p.StatusReason, why[g.Group]) {
			t.Errorf("%s: %s/%s from %q: %q; want %s with %q", g.Group, g.Status, p.Status, g.StatusSource, p.StatusReason, want[g.Group], why[g.Group])
		}
	}
	if len(rep.Groups) != len(groups) {
		t.Fatalf("%d groups, want %d", len(rep.Groups), len(groups))
	}
	r = mustRun(t, c, 4, append([]string{"lag", "--status-source", "offsets-topic", "--fail-if", "status>=STOP"}, groups...)...)
	if !strings.Contains(r.stderr, "threshold crossed by group "+stopped+" status STOP") || strings.Count(r.stderr, " status ") != 1 {
		t.Errorf("--fail-if status>=STOP:\n%s", r.stderr)
	}
}

// sameOffsetsPartition is a new group name whose records go to the same
// partition of __consumer_offsets as group's.
func sameOffsetsPartition(t *testing.T, c *testkit.Cluster, group string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	td, err := c.Admin().ListTopics(ctx, health.OffsetsTopic)
	if err != nil || len(td[health.OffsetsTopic].Partitions) == 0 {
		t.Fatalf("%s metadata: %v %+v", health.OffsetsTopic, err, td)
	}
	n := int32(len(td[health.OffsetsTopic].Partitions))
	want := health.OffsetsPartition(group, n)
	for i := 0; i < 100000; i++ {
		if g := testkit.Name(t, "health-noise"); health.OffsetsPartition(g, n) == want {
			return g
		}
	}
	t.Fatalf("no group name found for partition %d of %d", want, n)
	return ""
}

// abortedTxnCommit stages offset off of topic partition 0 for each group
// in one transaction and aborts it: the records stay in
// __consumer_offsets, followed by an abort marker.
func abortedTxnCommit(t *testing.T, c *testkit.Cluster, topic string, off int64, groups ...string) {
	t.Helper()
	stageTxnCommit(t, c, topic, off, groups...)(false)
}

// stageTxnCommit opens a transaction (timeout 60 s) that stages offset
// off of topic partition 0 for each group, and returns what ends it.
func stageTxnCommit(t *testing.T, c *testkit.Cluster, topic string, off int64, groups ...string) (end func(commit bool)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cl := c.Client()
	td, err := c.Admin().ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	id := testkit.Name(t, "health-txn")
	// retry sends one request until it is not answered with a retriable
	// error (a coordinator still loading or moving, a transaction still
	// ending).
	retry := func(what string, do func() (int16, error)) {
		t.Helper()
		for {
			code, err := do()
			if err == nil {
				err = kerr.ErrorForCode(code)
			}
			if err == nil {
				return
			}
			if ctx.Err() != nil || !(kerr.IsRetriable(err) || errors.Is(err, kerr.ConcurrentTransactions)) {
				t.Fatalf("%s: %v", what, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	var pid int64
	var epoch int16
	retry("InitProducerId", func() (int16, error) {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID, req.TransactionTimeoutMillis = &id, 60000
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return 0, err
		}
		pid, epoch = resp.ProducerID, resp.ProducerEpoch
		return resp.ErrorCode, nil
	})
	for _, g := range groups {
		retry("AddOffsetsToTxn", func() (int16, error) {
			req := kmsg.NewPtrAddOffsetsToTxnRequest()
			req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = id, pid, epoch, g
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return 0, err
			}
			return resp.ErrorCode, nil
		})
		retry("TxnOffsetCommit", func() (int16, error) {
			req := kmsg.NewPtrTxnOffsetCommitRequest()
			req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = id, g, pid, epoch
			req.Generation = -1
			rt := kmsg.NewTxnOffsetCommitRequestTopic()
			rt.Topic, rt.TopicID = topic, td[topic].ID
			rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch = 0, off, -1
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return 0, err
			}
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if p.ErrorCode != 0 {
						return p.ErrorCode, nil
					}
				}
			}
			return 0, nil
		})
	}
	return func(commit bool) {
		defer cancel()
		retry("EndTxn", func() (int16, error) {
			req := kmsg.NewPtrEndTxnRequest()
			req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return 0, err
			}
			return resp.ErrorCode, nil
		})
	}
}
