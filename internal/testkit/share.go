package testkit

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ShareConsumer starts a share consumer (KIP-932) of topic in group and
// waits until the group describes it as a member with all partitions of
// the topic assigned. (Apache 4.4 answers start offset -1 for them until a
// record is acknowledged; kfake initializes them at once.) Records it reads are
// acknowledged (accepted) on the next poll. The consumer closes at test
// end; call the returned stop to close it early: stop returns once the
// group has no member left.
func (c *Cluster) ShareConsumer(group, topic string, partitions int) (stop func()) {
	c.t.Helper()
	cl := c.Client(kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	c.waitShare(group, 45*time.Second, func(d kadm.DescribedShareGroup) bool {
		return len(d.Members) > 0 && len(d.AssignedPartitions()[topic]) == partitions
	}, "a member with every partition assigned", cancel)
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-done
		cl.Close() // leaves the group (member epoch -1)
		c.waitShare(group, 45*time.Second, func(d kadm.DescribedShareGroup) bool { return len(d.Members) == 0 }, "no members after the consumer closed", nil)
	}
	c.t.Cleanup(stop)
	return stop
}

// waitShare polls ShareGroupDescribe until ok, failing the test after d.
func (c *Cluster) waitShare(group string, d time.Duration, ok func(kadm.DescribedShareGroup) bool, what string, onFail func()) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		desc, err := c.Admin().DescribeShareGroups(Ctx(c.t), group)
		g, found := desc[group]
		if err == nil && found && g.Err == nil && ok(g) {
			return
		}
		if err == nil && found && errors.Is(g.Err, kerr.GroupIDNotFound) && ok(kadm.DescribedShareGroup{}) {
			// kfake drops a share group left with no members and no
			// start offsets: as good as empty.
			return
		}
		if time.Now().After(deadline) {
			if onFail != nil {
				onFail()
			}
			c.t.Fatalf("share group %s: not %s within %s (last describe: %+v, %v)", group, what, d, desc[group], err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ShareOffsets returns group's share-partition start offsets (topic →
// partition → offset) as DescribeShareGroupOffsets answers them; partitions
// without a start offset (-1) are left out.
func (c *Cluster) ShareOffsets(group string) map[string]map[int32]int64 {
	c.t.Helper()
	desc, err := c.Admin().DescribeShareGroupOffsets(Ctx(c.t), group)
	if err == nil {
		err = desc[group].Err
	}
	if err != nil {
		c.t.Fatalf("describing share-group offsets of %s: %v", group, err)
	}
	out := map[string]map[int32]int64{}
	desc[group].Offsets.Each(func(o kadm.ShareOffset) {
		if o.Err != nil {
			c.t.Fatalf("share-group offsets of %s %s/%d: %v", group, o.Topic, o.Partition, o.Err)
		}
		if o.StartOffset < 0 {
			return
		}
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.StartOffset
	})
	return out
}

// SetShareOffsets sets share-partition start offsets of an empty share
// group with AlterShareGroupOffsets (test setup, not offsetctl).
func (c *Cluster) SetShareOffsets(group, topic string, offsets map[int32]int64) {
	c.t.Helper()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	resp, err := c.Admin().AlterShareGroupOffsets(Ctx(c.t), group, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		c.t.Fatalf("altering share-group offsets of %s: %v", group, err)
	}
}

// WaitShareOffsets waits until group's start offsets on topic are want.
func (c *Cluster) WaitShareOffsets(group, topic string, want map[int32]int64) {
	c.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		got := c.ShareOffsets(group)[topic]
		if maps.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("share group %s: start offsets on %s are %v after 45s, want %v", group, topic, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ShareAckPastStart reads the available records of topic with a share
// consumer of the empty share group until it has seen want distinct
// records, releases the first record it got of each partition and accepts
// the others, and leaves. The start offsets stay at the released records,
// and the records after them are acknowledged: the state a reset of the
// start offsets discards. It waits until DescribeShareGroupOffsets' lag
// (KIP-1226) is lag per partition. A released record is delivered again at
// once, and after share.delivery.count.limit (5) deliveries the broker
// archives it and the start offset moves past it: kfake may hand one
// partition's released record back several times before it assigns the
// next partition. Then the start offsets are set back (AlterShareGroupOffsets
// drops every record state) and the run is tried again, up to 10 times.
func (c *Cluster) ShareAckPastStart(group, topic string, want int, lag map[int32]int64) {
	c.t.Helper()
	starts := c.ShareOffsets(group)[topic]
	for try := 1; ; try++ {
		c.shareAckOnce(group, topic, want)
		got, gotStarts := c.waitShareLag(group, topic, lag, starts)
		if maps.Equal(got, lag) {
			return
		}
		if try == 10 || maps.Equal(gotStarts, starts) {
			c.t.Fatalf("share group %s: lag on %s is %v (start offsets %v, were %v) after %d tries, want %v", group, topic, got, gotStarts, starts, try, lag)
		}
		c.t.Logf("share group %s: a released record was archived (start offsets %v, were %v): setting them back, try %d", group, gotStarts, starts, try+1)
		c.SetShareOffsets(group, topic, starts)
	}
}

func (c *Cluster) shareAckOnce(group, topic string, want int) {
	c.t.Helper()
	cl := c.Client(kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	first := map[int32]int64{}
	seen := map[[2]int64]bool{}
	for len(seen) < want && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			if f, ok := first[r.Partition]; !ok || f == r.Offset {
				first[r.Partition] = r.Offset
				r.Ack(kgo.AckRelease)
			} else {
				r.Ack(kgo.AckAccept)
			}
			seen[[2]int64{int64(r.Partition), r.Offset}] = true
		})
	}
	if len(seen) < want {
		c.t.Fatalf("share group %s: saw %d records of %s in 45s, want %d", group, len(seen), topic, want)
	}
	if err := cl.FlushAcks(ctx); err != nil {
		c.t.Fatalf("share group %s: flushing acknowledgements: %v", group, err)
	}
	cl.Close()
	c.waitShare(group, 45*time.Second, func(d kadm.DescribedShareGroup) bool { return len(d.Members) == 0 }, "no members after the consumer closed", nil)
}

// waitShareLag waits up to 15s for group's lag on topic to be want, or
// until its start offsets differ from were (a released record archived);
// it returns the last lag and start offsets read.
func (c *Cluster) waitShareLag(group, topic string, want, were map[int32]int64) (lag, starts map[int32]int64) {
	c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		desc, err := c.Admin().DescribeShareGroupOffsets(Ctx(c.t), group)
		lag, starts = map[int32]int64{}, map[int32]int64{}
		if err == nil && desc[group].Err == nil {
			desc[group].Offsets.Each(func(o kadm.ShareOffset) {
				if o.Topic == topic && o.Err == nil && o.StartOffset >= 0 {
					lag[o.Partition], starts[o.Partition] = o.Lag, o.StartOffset
				}
			})
		}
		if maps.Equal(lag, want) || len(starts) == len(were) && !maps.Equal(starts, were) || time.Now().After(deadline) {
			return lag, starts
		}
		time.Sleep(100 * time.Millisecond)
	}
}
