package health

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchCluster is a kfake cluster with topic "t" of two partitions, each
// holding n records "p/i" (keys), every third with a null value, and a
// new client of it (not the producer: its metadata is not cached).
func fetchCluster(t *testing.T, n int) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	for p := range int32(2) {
		for i := range n {
			r := &kgo.Record{Topic: "t", Partition: p, Key: []byte(fmt.Sprintf("%d/%d", p, i)), Value: []byte("v")}
			if i%3 == 2 {
				r.Value = nil
			}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Metadata at most 50 ms old: a leader moved by the test is found
	// at once, not after kgo's default 5 s.
	fresh, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fresh.Close)
	return c, fresh
}

// topicFetcher is a fetcher of fetchCluster's topic "t" from next, its
// fetches held 100 ms for 1 byte.
func topicFetcher(cl *kgo.Client, next map[int32]int64) *fetcher {
	f := newFetcher(cl, next, 100*time.Millisecond, 1)
	f.topic = "t"
	return f
}

// fetchAll polls f until every partition's next offset is at want,
// returning the keys read per partition in order and the polls' errors.
func fetchAll(t *testing.T, f *fetcher, want int64) (map[int32][]string, []error) {
	t.Helper()
	keys := map[int32][]string{}
	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for polled := false; !polled || f.next[0] < want || f.next[1] < want; polled = true {
		res, err := f.poll(ctx)
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if res.err != nil {
			errs = append(errs, res.err)
		}
		for p := range res.restart {
			keys[p] = append(keys[p], "restart")
		}
		if _, err := f.apply(res, func(r *TailRecord) {
			keys[r.Partition] = append(keys[r.Partition], fmt.Sprintf("%s@%d nil=%v", r.Key, r.Offset, r.Value == nil))
		}); err != nil {
			t.Fatalf("apply: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatalf("next %v, want %d", f.next, want)
		}
	}
	return keys, errs
}

func wantKeys(t *testing.T, got []string, p int32, from, n int) {
	t.Helper()
	if len(got) != n-from {
		t.Fatalf("partition %d: %d records %v, want %d", p, len(got), got, n-from)
	}
	for i, k := range got {
		if w := fmt.Sprintf("%d/%d@%d nil=%v", p, from+i, from+i, (from+i)%3 == 2); k != w {
			t.Fatalf("partition %d record %d: %q, want %q", p, i, k, w)
		}
	}
}

// The fetcher reads each partition once, in order, from where it is
// asked to, nulls as nulls, from both leaders.
func TestFetcherReads(t *testing.T) {
	_, cl := fetchCluster(t, 10)
	f := topicFetcher(cl, map[int32]int64{0: 0, 1: 4})
	keys, errs := fetchAll(t, f, 10)
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	wantKeys(t, keys[0], 0, 0, 10)
	wantKeys(t, keys[1], 1, 4, 10)
	if f.count != 2 || len(f.leaders) != 2 {
		t.Fatalf("count %d leaders %v", f.count, f.leaders)
	}
}

// A partition whose leader moved, or that a broker whose metadata is
// behind does not know yet, is fetched again once the leaders are looked
// up again: nothing lost, nothing twice, the error reported, never taken
// for a topic not ours to read.
func TestFetcherLeaderMoved(t *testing.T) {
	for _, code := range []*kerr.Error{kerr.NotLeaderForPartition, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.FencedLeaderEpoch} {
		c, cl := fetchCluster(t, 10)
		var once atomic.Bool
		c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
			if once.Swap(true) {
				return nil, nil, false
			}
			r := req.(*kmsg.FetchRequest)
			resp := r.ResponseKind().(*kmsg.FetchResponse)
			for _, rt := range r.Topics {
				st := kmsg.NewFetchResponseTopic()
				st.Topic, st.TopicID = rt.Topic, rt.TopicID
				for _, rp := range rt.Partitions {
					sp := kmsg.NewFetchResponseTopicPartition()
					sp.Partition, sp.ErrorCode = rp.Partition, code.Code
					st.Partitions = append(st.Partitions, sp)
				}
				resp.Topics = append(resp.Topics, st)
			}
			return resp, nil, true
		})
		f := topicFetcher(cl, map[int32]int64{0: 0, 1: 0})
		keys, errs := fetchAll(t, f, 10)
		if len(errs) != 1 || !errors.Is(errs[0], code) {
			t.Fatalf("%s: errors %v, want one", code.Message, errs)
		}
		wantKeys(t, keys[0], 0, 0, 10)
		wantKeys(t, keys[1], 1, 0, 10)
	}
}

// An offset out of range sends the partition back to its log start, for
// its state to be read again, and says so.
func TestFetcherOutOfRange(t *testing.T) {
	_, cl := fetchCluster(t, 6)
	f := topicFetcher(cl, map[int32]int64{0: 50, 1: 6})
	keys, errs := fetchAll(t, f, 6)
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if len(keys[0]) == 0 || keys[0][0] != "restart" {
		t.Fatalf("partition 0: %v, want a restart first", keys[0])
	}
	wantKeys(t, keys[0][1:], 0, 0, 6)
	if len(keys[1]) != 0 {
		t.Fatalf("partition 1 read %v", keys[1])
	}
}

// A topic the principal may not read ends the poll with an error
// noAccess knows, whether the metadata or the fetch says so.
func TestFetcherNoAccess(t *testing.T) {
	for _, at := range []int16{int16(kmsg.Metadata), int16(kmsg.Fetch)} {
		c, cl := fetchCluster(t, 1)
		c.ControlKey(at, func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			switch r := req.(type) {
			case *kmsg.MetadataRequest:
				resp := r.ResponseKind().(*kmsg.MetadataResponse)
				for _, rt := range r.Topics {
					st := kmsg.NewMetadataResponseTopic()
					st.Topic, st.ErrorCode = rt.Topic, kerr.TopicAuthorizationFailed.Code
					resp.Topics = append(resp.Topics, st)
				}
				for _, b := range []int32{0, 1} {
					resp.Brokers = append(resp.Brokers, kmsg.MetadataResponseBroker{NodeID: b, Host: "127.0.0.1", Port: 1})
				}
				return resp, nil, r.Topics != nil
			case *kmsg.FetchRequest:
				resp := r.ResponseKind().(*kmsg.FetchResponse)
				resp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				return resp, nil, true
			}
			return nil, nil, false
		})
		f := topicFetcher(cl, map[int32]int64{0: 0})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := f.poll(ctx)
		cancel()
		if !noAccess(err) {
			t.Errorf("%s: err %v, want no access (res %+v)", kmsg.NameForKey(at), err, res)
		}
	}
}

// A partition with no leader when the leaders are looked up (offline: a
// broker restarting that was its only replica in sync) is an error at
// every poll and is looked up again until it has one, then read: never
// passed over in silence.
func TestFetcherNoLeaderThenBack(t *testing.T) {
	_, cl := fetchCluster(t, 5)
	f := topicFetcher(cl, map[int32]int64{0: 0, 1: 0})
	ctx := context.Background()
	if err := f.lookup(ctx); err != nil {
		t.Fatal(err)
	}
	f.leaders[1] = -1
	res, err := f.poll(ctx)
	if err != nil || !errors.Is(res.err, kerr.LeaderNotAvailable) || f.leaders != nil {
		t.Fatalf("poll: err %v, res.err %v, leaders %v: want the leaderless partition an error and the leaders looked up again", err, res.err, f.leaders)
	}
	if len(res.parts) != 1 || res.parts[0].partition != 0 {
		t.Fatalf("fetched %+v, want partition 0 alone", res.parts)
	}
	f.apply(res, func(*TailRecord) {})
	keys, errs := fetchAll(t, f, 5)
	if len(errs) != 0 {
		t.Fatalf("errors %v once the leader is back", errs)
	}
	wantKeys(t, keys[1], 1, 0, 5)
}

// TestTailerLostAfterOutOfRange: a partition read again from its log
// start after an offset out of range is lost when that start is past 0
// (records deleted), not when it is 0 (a log truncated).
func TestTailerLostAfterOutOfRange(t *testing.T) {
	_, cl := fetchCluster(t, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	del := kadm.Offsets{}
	del.AddOffset("t", 1, 3, -1)
	resp, err := kadm.NewClient(cl).DeleteRecords(ctx, del)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	// Partition 0 asked past its end (a truncated log), partition 1 below
	// its new start.
	f := topicFetcher(cl, map[int32]int64{0: 50, 1: 1})
	tl := NewTailer(TopicReader{Idle: 300 * time.Millisecond}, TailOptions{})
	_ = tl.consume(ctx, f, NewWarmUp(map[int32]int64{0: 0, 1: 1}, map[int32]int64{0: 6, 1: 6}))
	if f.next[1] != 6 || f.next[0] != 6 {
		t.Fatalf("next %v, want both read to 6", f.next)
	}
	tl.View(func(s *TailState) {
		for i := 0; i < 20; i++ {
			g := fmt.Sprintf("g%d", i)
			p, start, lost := s.Lost(g)
			if want := OffsetsPartition(g, 2) == 1; lost != want || (lost && (p != 1 || start != 3)) {
				t.Errorf("%s: partition %d start %d lost %v; want lost %v (partition 1 at 3)", g, p, start, lost, want)
			}
		}
	})
}

// A partition whose leader changed is checked before it is fetched again
// (KIP-320): the new leader is asked where the epoch of what was read
// ends in its log. "truncated": it ends at 6, before the 10 read (an
// unclean election lost records 6 to 9 under the reader), and the
// partition is read again from its log start, said as a restart; the
// other partition only goes on. "intact": the epoch ends at 10, as
// far as was read, and reading goes on with the records written under the
// new leader, nothing read twice. Every fetch carries the leader epoch
// the metadata gave.
func TestFetcherLeaderEpochChecked(t *testing.T) {
	for _, truncated := range []bool{true, false} {
		t.Run(map[bool]string{true: "truncated", false: "intact"}[truncated], func(t *testing.T) {
			c, cl := fetchCluster(t, 10)
			var mu sync.Mutex
			epochs := map[int32]bool{} // the CurrentLeaderEpoch of partition 0's fetches
			c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				for _, rt := range req.(*kmsg.FetchRequest).Topics {
					for _, rp := range rt.Partitions {
						if rp.Partition == 0 {
							mu.Lock()
							epochs[rp.CurrentLeaderEpoch] = true
							mu.Unlock()
						}
					}
				}
				return nil, nil, false
			})
			f := topicFetcher(cl, map[int32]int64{0: 0, 1: 0})
			if _, errs := fetchAll(t, f, 10); len(errs) != 0 {
				t.Fatalf("errors %v", errs)
			}
			before := f.epochs[0]
			if len(epochs) != 1 || !epochs[before] || before < 0 || f.lastEpoch[0] != before {
				t.Fatalf("fetch epochs %v, metadata's %d, last batch's %d", epochs, before, f.lastEpoch[0])
			}
			other := int32(0)
			if f.leaders[0] == 0 {
				other = 1
			}
			if err := c.MoveTopicPartition("t", 0, other); err != nil {
				t.Fatal(err)
			}
			asked := make(chan int32, 4)
			c.ControlKey(int16(kmsg.OffsetForLeaderEpoch), func(req kmsg.Request) (kmsg.Response, error, bool) {
				r := req.(*kmsg.OffsetForLeaderEpochRequest)
				asked <- r.Topics[0].Partitions[0].LeaderEpoch
				if !truncated {
					return nil, nil, false
				}
				resp := r.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
				st := kmsg.NewOffsetForLeaderEpochResponseTopic()
				st.Topic = r.Topics[0].Topic
				sp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
				sp.Partition, sp.LeaderEpoch, sp.EndOffset = 0, r.Topics[0].Partitions[0].LeaderEpoch, 6
				st.Partitions = append(st.Partitions, sp)
				resp.Topics = append(resp.Topics, st)
				return resp, nil, true
			})
			// Records written under the new leader.
			pr, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			for p := range int32(2) {
				for i := 10; i < 12; i++ {
					if err := pr.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Partition: p, Key: []byte(fmt.Sprintf("%d/%d", p, i)), Value: []byte("v")}).FirstErr(); err != nil {
						t.Fatal(err)
					}
				}
			}
			keys, _ := fetchAll(t, f, 12)
			select {
			case e := <-asked:
				if e != before {
					t.Fatalf("asked for epoch %d, want the last batch's %d", e, before)
				}
			default:
				t.Fatal("the new leader was not asked where the epoch read ends")
			}
			if truncated {
				if len(keys[0]) == 0 || keys[0][0] != "restart" {
					t.Fatalf("partition 0: %v, want a restart first", keys[0])
				}
				if len(keys[0]) != 13 || keys[0][12] != "0/11@11 nil=false" {
					t.Fatalf("partition 0 read again: %v", keys[0])
				}
				wantKeys(t, keys[0][1:11], 0, 0, 10)
			} else if len(keys[0]) != 2 || keys[0][0] != "0/10@10 nil=false" || keys[0][1] != "0/11@11 nil=false" {
				t.Fatalf("partition 0 after the move: %v, want only 10 and 11", keys[0])
			}
			if len(keys[1]) != 2 || keys[1][0] != "1/10@10 nil=false" {
				t.Fatalf("partition 1: %v, want only 10 and 11", keys[1])
			}
			mu.Lock()
			defer mu.Unlock()
			if !epochs[before+1] || f.epochs[0] != before+1 || f.lastEpoch[0] != before+1 || len(f.unchecked) != 0 {
				t.Fatalf("fetch epochs %v, metadata's %d, last batch's %d, unchecked %v; want %d", epochs, f.epochs[0], f.lastEpoch[0], f.unchecked, before+1)
			}
		})
	}
}
