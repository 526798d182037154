package replay

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{in: "0/1", want: Shard{0, 1}},
		{in: "0/3", want: Shard{0, 3}},
		{in: "2/3", want: Shard{2, 3}},
		{in: " 1 / 4 ", want: Shard{1, 4}},
		{in: "99999/100000", want: Shard{99999, 100000}},
		{in: "3/3", err: "the index is 0-based: want 0 to 2 for 3 shards"},
		{in: "-1/3", err: "the index is 0-based"},
		{in: "1/0", err: "the number of shards must be 1 to 100000"},
		{in: "0/100001", err: "the number of shards must be 1 to 100000"},
		{in: "/3", err: "is JOB_COMPLETION_INDEX set?"},
		{in: "1", err: "want I/N"},
		{in: "", err: "want I/N"},
		{in: "a/3", err: "two whole numbers"},
		{in: "1/3/4", err: "two whole numbers"},
		{in: "+1/3", err: "two whole numbers"},
		{in: "1.0/3", err: "two whole numbers"},
		{in: "0x1/3", err: "two whole numbers"},
		{in: "1/" + strings.Repeat("9", 300), err: "…"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || len(err.Error()) > 300 {
				t.Errorf("ParseShard(%q): %v, want an error holding %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCheckShard(t *testing.T) {
	for _, s := range []*Shard{{0, 0}, {3, 3}, {-1, 2}, {0, MaxShards + 1}} {
		if err := checkShard(s); exitcode.Code(err) != 2 {
			t.Errorf("checkShard(%v) = %v, want exit 2", *s, err)
		}
	}
	if checkShard(nil) != nil || checkShard(&Shard{2, 3}) != nil {
		t.Error("valid shards refused")
	}
}

// TestShardPlanAssignment: partition p goes to shard p mod N; the shards
// of one plan are disjoint and cover it, also for a --partitions selection
// and for more shards than partitions (some shards then read nothing).
func TestShardPlanAssignment(t *testing.T) {
	mk := func(parts ...int32) Plan {
		pl := Plan{Topic: "t"}
		for _, p := range parts {
			pl.Partitions = append(pl.Partitions, PartitionPlan{Partition: p, From: 0, Bound: 10})
		}
		return pl
	}
	seq := func(n int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		plan  Plan
		count int
		want  [][]int32
	}{
		{"12 partitions, 3 shards", mk(seq(12)...), 3, [][]int32{{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}}},
		{"one shard is everything", mk(seq(5)...), 1, [][]int32{{0, 1, 2, 3, 4}}},
		{"--partitions 1,2,7,8", mk(1, 2, 7, 8), 2, [][]int32{{2, 8}, {1, 7}}},
		{"more shards than partitions", mk(0, 1), 4, [][]int32{{0}, {1}, {}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[int32]int{}
			for i := 0; i < tc.count; i++ {
				sp, info := ShardPlan(tc.plan, Shard{Index: i, Count: tc.count})
				var got []int32
				for _, pp := range sp.Partitions {
					got = append(got, pp.Partition)
					seen[pp.Partition]++
				}
				if !slices.Equal(got, tc.want[i]) && len(got)+len(tc.want[i]) > 0 {
					t.Errorf("shard %d/%d: %v, want %v", i, tc.count, got, tc.want[i])
				}
				if !slices.Equal(info.Partitions, tc.want[i]) && len(info.Partitions)+len(tc.want[i]) > 0 {
					t.Errorf("shard %d/%d: info %v, want %v", i, tc.count, info.Partitions, tc.want[i])
				}
				if len(info.Selected) != len(tc.plan.Partitions) {
					t.Errorf("shard %d/%d: selected %v", i, tc.count, info.Selected)
				}
			}
			for _, pp := range tc.plan.Partitions {
				if seen[pp.Partition] != 1 {
					t.Errorf("partition %d is in %d shards", pp.Partition, seen[pp.Partition])
				}
			}
		})
	}
}

// shardFixture makes per-shard digests of records over 12 partitions
// (partition 7 empty), from the same hashing the replay does, and the
// digest and payload digest of the whole range.
func shardFixture(n int) (files []NamedShardDigest, digest, payload string) {
	ts := time.UnixMilli(1796018400000)
	var recs []*kgo.Record
	for p := int32(0); p < 12; p++ {
		if p == 7 {
			continue
		}
		for o := int64(0); o < int64(p)+2; o++ {
			recs = append(recs, &kgo.Record{Partition: p, Offset: 10 + o, Timestamp: ts.Add(time.Duration(o) * time.Millisecond),
				Key: []byte{byte('a' + p)}, Value: bytes.Repeat([]byte{byte(o)}, int(o)*100)})
		}
	}
	hashes := map[int32]*partHash{}
	all := make([]int32, 12)
	for p := range all {
		all[p] = int32(p)
		hashes[int32(p)] = newPartHash(true)
	}
	for _, r := range recs {
		hashes[r.Partition].add(r)
	}
	sums := partitionSums(all, hashes)
	for i := 0; i < n; i++ {
		res := &Result{Topic: "orders", Isolation: "committed", Stopped: StoppedEnd, DigestVersion: DigestVersion, sums: sums, topicPartitions: 12,
			Verification: Verification{Unchanged: true, GroupsChecked: 1}}
		plan := Plan{Topic: "orders"}
		for _, p := range all {
			plan.Partitions = append(plan.Partitions, PartitionPlan{Partition: p, From: 10, Bound: 10 + int64(p) + 2})
		}
		_, info := ShardPlan(plan, Shard{Index: i, Count: n})
		res.Shard = &info
		for _, p := range info.Partitions {
			recsN := hashes[p].n
			res.Partitions = append(res.Partitions, PartitionResult{Partition: p, From: 10, To: 10 + recsN, Records: recsN})
			res.Records += recsN
		}
		res.Digest = combine(info.Partitions, hashes, false)
		sd := NewShardDigest(res, DigestFileOptions{From: "earliest"}, ts)
		files = append(files, NamedShardDigest{Name: "shard-" + string(rune('0'+i)) + ".json", ShardDigest: sd})
	}
	return files, combine(all, hashes, false), combine(all, hashes, true)
}

func TestMergeShards(t *testing.T) {
	files, digest, payload := shardFixture(3)
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		in := []NamedShardDigest{files[order[0]], files[order[1]], files[order[2]]}
		m, err := MergeShards(in)
		if err != nil || m.Digest != digest || m.PayloadDigest != payload || len(m.Partitions) != 12 || m.ShardCount != 3 || !m.ProofUnchanged {
			t.Fatalf("merge %v: %+v, %v; want digest %s", order, m, err, digest)
		}
	}
	one, d1, _ := shardFixture(1)
	if m, err := MergeShards(one); err != nil || m.Digest != d1 || d1 != digest {
		t.Fatalf("one shard: %+v, %v", m, err)
	}

	type mod func([]NamedShardDigest) []NamedShardDigest
	edit := func(i int, f func(*ShardDigest)) mod {
		return func(fs []NamedShardDigest) []NamedShardDigest {
			f(&fs[i].ShardDigest)
			return fs
		}
	}
	for _, tc := range []struct {
		name string
		mod  mod
		code int
		err  string
	}{
		{"missing shard", func(fs []NamedShardDigest) []NamedShardDigest { return fs[:2] }, 2,
			"missing shard: 2/3 of 3 not given (partitions 2,5,8,11 of the range are in no file)"},
		{"same file twice", func(fs []NamedShardDigest) []NamedShardDigest { return append(fs, fs[1]) }, 2,
			"shard-1.json was given twice: name each shard digest file once"},
		{"same shard twice", func(fs []NamedShardDigest) []NamedShardDigest {
			again := fs[1]
			again.Name = "shard-1-copy.json"
			return append(fs, again)
		}, 2, "overlapping shards: shard-1.json and shard-1-copy.json are both shard 1/3"},
		{"partition in two shards", edit(1, func(sd *ShardDigest) {
			sd.Shard.Partitions = []int32{0, 1, 4, 7, 10}
			sd.Partitions = append([]ShardPartition{{Partition: 0}}, sd.Partitions...)
		}), 2, "overlapping shards: partition 0 is in shard-0.json and in shard-1.json"},
		{"shard count mismatch", edit(2, func(sd *ShardDigest) { sd.Shard.Count = 4 }), 2,
			"shard count mismatch: shard-0.json is shard 0/3, shard-2.json is shard 2/4"},
		{"another topic", edit(1, func(sd *ShardDigest) { sd.Topic = "other" }), 2, `topic "orders" vs "other"`},
		{"another --until", edit(2, func(sd *ShardDigest) { sd.Until = "time:2026-12-01T00:00:00Z" }), 2, "--until"},
		{"another --from", edit(1, func(sd *ShardDigest) { sd.From = "0=5" }), 2, `--from "earliest" vs "0=5"`},
		{"another isolation", edit(1, func(sd *ShardDigest) { sd.Isolation = "uncommitted" }), 2, "--isolation committed vs uncommitted"},
		{"another selection", edit(1, func(sd *ShardDigest) { sd.Shard.Selected = sd.Shard.Selected[:11] }), 2, "selected partitions"},
		{"partitions grew", edit(1, func(sd *ShardDigest) { sd.TopicPartitions = 13 }), 2, "topic partition count 12 vs 13"},
		{"mixed digest versions", edit(1, func(sd *ShardDigest) { sd.DigestVersion = 2 }), 2,
			"mixed digest versions: shard-0.json has digest_version 1, shard-1.json has 2"},
		{"not its share", edit(1, func(sd *ShardDigest) {
			sd.Shard.Partitions = []int32{1, 4}
			sd.Partitions = sd.Partitions[:2]
		}), 2, "shard-1.json: shard 1/3 should cover partitions 1,4,7,10 (p mod 3 = 1) but covers 1,4"},
		{"interrupted shard", edit(0, func(sd *ShardDigest) { sd.Stopped = StoppedInterrupted }), 2,
			"shard-0.json: shard 0/3 stopped (interrupted) before the end of its range"},
		{"failed proof", edit(2, func(sd *ShardDigest) { sd.Proof = ShardProof{Failed: true, GroupsChecked: 1} }), 3,
			"verification failed in shard 2/3 (shard-2.json)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _, _ := shardFixture(3)
			m, err := MergeShards(tc.mod(fs))
			if exitcode.Code(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v (exit %d), want exit %d holding %q", err, exitcode.Code(err), tc.code, tc.err)
			}
			if tc.code == 2 && m != nil {
				t.Fatalf("a refused merge returned a result: %+v", m)
			}
			if tc.code == 3 && (m == nil || m.Digest != digestOf(fs) || m.ProofUnchanged) {
				t.Fatalf("failed proof: %+v", m)
			}
		})
	}
	if _, err := MergeShards(nil); exitcode.Code(err) != 2 {
		t.Fatalf("no files: %v", err)
	}
}

func digestOf([]NamedShardDigest) string {
	_, d, _ := shardFixture(3)
	return d
}

// TestShardDigestRoundTrip: a file written and read back is the same
// digest, and the reader refuses what merge could not trust.
func TestShardDigestRoundTrip(t *testing.T) {
	files, _, _ := shardFixture(3)
	data, err := json.Marshal(files[1].ShardDigest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadShardDigest(bytes.NewReader(data))
	if err != nil || got.Digest != files[1].Digest || !slices.Equal(got.Shard.Partitions, []int32{1, 4, 7, 10}) || len(got.Partitions) != 4 {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, tc := range []struct {
		name, from, to, err string
	}{
		{"unknown field", `"topic":`, `"extra":1,"topic":`, "unknown field"},
		{"other format", `"format":"offsetctl-shard-digest"`, `"format":"x"`, "format is not"},
		{"later format", `"format_version":1`, `"format_version":2`, "format_version 2"},
		{"bad digest", `"digest":"`, `"digest":"zz`, "digest is not 64 hex digits"},
		{"index past count", `"index":1`, `"index":3`, "shard 3/3 is not"},
		{"records off", `"records":` + itoa(files[1].Records), `"records":1`, "but the partitions hold"},
	} {
		bad := strings.Replace(string(data), tc.from, tc.to, 1)
		if bad == string(data) {
			t.Fatalf("%s: %q not in the file", tc.name, tc.from)
		}
		if _, err := ReadShardDigest(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
	if _, err := ReadShardDigest(strings.NewReader(string(data) + "{}")); err == nil {
		t.Error("trailing data accepted")
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// FuzzReadShardDigest: the reader never panics, and whatever it accepts
// passes its own checks again after a round trip and merges alone or is
// refused as bad input, never anything else.
func FuzzReadShardDigest(f *testing.F) {
	files, _, _ := shardFixture(3)
	for _, sd := range files {
		data, _ := json.Marshal(sd.ShardDigest)
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"offsetctl-shard-digest","format_version":1,"digest_version":1,"topic":"t","shard":{"index":0,"count":1,"selected":[],"partitions":[]},"partitions":[],"digest":"` + combineParts(nil, false) + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sd, err := ReadShardDigest(bytes.NewReader(data))
		if err != nil {
			return
		}
		again, err := json.Marshal(sd)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadShardDigest(bytes.NewReader(again)); err != nil {
			t.Fatalf("accepted, then refused after a round trip: %v", err)
		}
		// What the reader accepts is consistent: its digest is its
		// partitions', and no partition holds more records than offsets.
		if combineParts(sd.Partitions, false) != sd.Digest {
			t.Fatalf("accepted a digest %s that its partitions do not give", sd.Digest)
		}
		for _, sp := range sd.Partitions {
			if sp.Records < 0 || sp.From > sp.To || sp.Records > sp.To-sp.From {
				t.Fatalf("accepted partition %+v", sp)
			}
		}
		if _, err := MergeShards([]NamedShardDigest{{Name: "f", ShardDigest: sd}}); err != nil {
			if c := exitcode.Code(err); c != 2 && c != 3 {
				t.Fatalf("merge: exit %d: %v", c, err)
			}
		}
	})
}

// TestMissingShardsGrammar: the line for shards not given agrees in number
// with the shards and the partitions it names; one shard of one partition
// read "missing shards: 1/3 of 3 not given (partitions 1 of the range are
// in no file)" (QA finding).
func TestMissingShardsGrammar(t *testing.T) {
	for _, tc := range []struct {
		named    string
		nMissing int
		parts    []int32
		want     string
	}{
		{"1/3", 1, []int32{1}, "missing shard: 1/3 of 3 not given (partition 1 of the range is in no file)"},
		{"1/3", 1, []int32{1, 4}, "missing shard: 1/3 of 3 not given (partitions 1,4 of the range are in no file)"},
		{"1/3,2/3", 2, []int32{1, 2}, "missing shards: 1/3,2/3 of 3 not given (partitions 1,2 of the range are in no file)"},
		{"2/3", 1, nil, "missing shard: 2/3 of 3 not given (it covers no partition of the range)"},
		{"1/3,2/3", 2, nil, "missing shards: 1/3,2/3 of 3 not given (they cover no partition of the range)"},
	} {
		if got := missingShards(tc.named, tc.nMissing, 3, tc.parts).Error(); got != tc.want {
			t.Errorf("missingShards(%s, %v) = %q, want %q", tc.named, tc.parts, got, tc.want)
		}
	}
}
