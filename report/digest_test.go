package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/replay"
)

func TestDigestMergeView(t *testing.T) {
	r := &replay.MergeResult{Topic: "orders", Isolation: "committed", DigestVersion: 1, Digest: strings.Repeat("a", 64), Records: 3, ShardCount: 2, ProofUnchanged: false,
		Shards: []replay.MergedShard{
			{File: "s0.json", Index: 0, Count: 2, Partitions: []int32{0}, Records: 1, Digest: strings.Repeat("b", 64), Proof: replay.ShardProof{Unchanged: true}},
			{File: "s\x1b1.json", Index: 1, Count: 2, Partitions: []int32{1}, Records: 2, Digest: strings.Repeat("c", 64), Proof: replay.ShardProof{Skipped: true, Unchanged: true}},
		},
		Partitions: []replay.MergedPartRow{{Partition: 0, Shard: 0, From: 0, To: 1, Records: 1}, {Partition: 1, Shard: 1, From: 5, To: 7, Records: 2}},
	}
	for _, tc := range []struct {
		f    Format
		want []string
	}{
		{Table, []string{"SHARDS 2  PARTITIONS 2  RECORDS 3", "DIGEST " + strings.Repeat("a", 64), "not every shard proved", "1/2", "skipped", "s\\x1b1.json", "unchanged"}},
		{CSV, []string{"SHARD,FILE,PARTITIONS,RECORDS,DIGEST,PROOF\n0/2,s0.json,0,1,", "\n\nPARTITION,SHARD,FROM,TO,RECORDS\n0,0,0,1,1\n1,1,5,7,2\n"}},
	} {
		var b bytes.Buffer
		if err := DigestMerge(&b, tc.f, r); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", tc.f, w, b.String())
			}
		}
		if tc.f == Table && strings.Contains(b.String(), "\x1b") {
			t.Errorf("table: a raw escape reached the output") // CSV and JSON are exact data
		}
	}
	var b bytes.Buffer
	if err := DigestMerge(&b, JSON, r); err != nil {
		t.Fatal(err)
	}
	var back replay.MergeResult
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Digest != r.Digest || len(back.Shards) != 2 || back.Shards[1].File != r.Shards[1].File {
		t.Fatalf("JSON: %v %+v", err, back)
	}
}
