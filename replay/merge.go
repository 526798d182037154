package replay

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// MergeResult is `offsetctl digest merge`: the digest one unsharded replay
// of the same range gives, combined from the shards' digest files.
type MergeResult struct {
	Topic         string `json:"topic"`
	Isolation     string `json:"isolation"`
	From          string `json:"from"`
	Until         string `json:"until"`
	DigestVersion int    `json:"digest_version"`
	Digest        string `json:"digest"`
	// PayloadDigest is combined when every shard computed it.
	PayloadDigest string `json:"payload_digest,omitempty"`
	Records       int64  `json:"records"`
	ShardCount    int    `json:"shard_count"`
	// ProofUnchanged: every shard's proof found all committed offsets
	// unchanged (false when a shard skipped it or it failed).
	ProofUnchanged bool            `json:"proof_unchanged"`
	Shards         []MergedShard   `json:"shards"`
	Partitions     []MergedPartRow `json:"partitions"`
}

// MergedShard is one input file.
type MergedShard struct {
	File       string     `json:"file"`
	Index      int        `json:"index"`
	Count      int        `json:"count"`
	Partitions []int32    `json:"partitions"`
	Records    int64      `json:"records"`
	Digest     string     `json:"digest"`
	Proof      ShardProof `json:"proof"`
}

// MergedPartRow is one partition of the merged range.
type MergedPartRow struct {
	Partition int32 `json:"partition"`
	Shard     int   `json:"shard"`
	From      int64 `json:"from"`
	To        int64 `json:"to"`
	Records   int64 `json:"records"`
}

// MergeDigestFiles reads the shard digest files and merges them: the one
// function the command calls.
func MergeDigestFiles(paths []string) (*MergeResult, error) {
	if len(paths) == 0 {
		return nil, exitcode.Usagef("name the shard digest files: offsetctl digest merge FILE...")
	}
	if err := distinctFiles(paths); err != nil {
		return nil, err
	}
	files := make([]NamedShardDigest, len(paths))
	for i, p := range paths {
		sd, err := ReadShardDigestFile(p)
		if err != nil {
			return nil, err
		}
		files[i] = NamedShardDigest{Name: p, ShardDigest: sd}
	}
	return MergeShards(files)
}

// distinctFiles refuses a file named twice, by one path or by two: it is
// one file given twice, not two files of one shard (exit 2). A file that
// cannot be stat'ed is left to its read to report.
func distinctFiles(paths []string) error {
	type file struct {
		path string
		info os.FileInfo
	}
	var seen []file
	for _, p := range paths {
		info, _ := os.Stat(p)
		for _, f := range seen {
			switch {
			case f.path == p:
				return exitcode.Usagef("%s was given twice: name each shard digest file once", safetext.Arg(p))
			case info != nil && f.info != nil && os.SameFile(f.info, info):
				return exitcode.Usagef("%s and %s are the same file: name each shard digest file once", safetext.Arg(f.path), safetext.Arg(p))
			}
		}
		seen = append(seen, file{p, info})
	}
	return nil
}

// NamedShardDigest is a shard digest and the file it came from.
type NamedShardDigest struct {
	Name string
	ShardDigest
}

// MergeShards combines shard digests (pure). It refuses, as bad input
// (exit 2, one line): mixed digest or file versions, different topics,
// isolations, ranges or selections, shards of different counts, the same
// shard twice or a partition in two files (overlap), a missing shard, a
// file whose partitions are not its shard's share, and a shard that did
// not reach the end of its range. A shard whose proof failed makes the
// merge an exit-3 error (the result is still returned).
func MergeShards(files []NamedShardDigest) (*MergeResult, error) {
	if len(files) == 0 {
		return nil, exitcode.Usagef("no shard digest files to merge")
	}
	if err := sameRun(files); err != nil {
		return nil, exitcode.AsUsage(err)
	}
	byIndex, err := coverage(files)
	if err != nil {
		return nil, exitcode.AsUsage(err)
	}
	first := files[0]
	res := &MergeResult{Topic: first.Topic, Isolation: first.Isolation, From: first.From, Until: first.Until,
		DigestVersion: first.DigestVersion, ShardCount: first.Shard.Count, ProofUnchanged: true,
		Shards: []MergedShard{}, Partitions: []MergedPartRow{}}
	var all []ShardPartition
	owner := map[int32]int{}
	for _, f := range byIndex {
		res.Shards = append(res.Shards, MergedShard{File: f.Name, Index: f.Shard.Index, Count: f.Shard.Count,
			Partitions: f.Shard.Partitions, Records: f.Records, Digest: f.Digest, Proof: f.Proof})
		res.Records += f.Records
		res.ProofUnchanged = res.ProofUnchanged && f.Proof.Unchanged && !f.Proof.Skipped && f.Proof.Error == ""
		for _, sp := range f.Partitions {
			all = append(all, sp)
			owner[sp.Partition] = f.Shard.Index
		}
	}
	slices.SortFunc(all, func(a, b ShardPartition) int { return int(a.Partition) - int(b.Partition) })
	for _, sp := range all {
		res.Partitions = append(res.Partitions, MergedPartRow{Partition: sp.Partition, Shard: owner[sp.Partition], From: sp.From, To: sp.To, Records: sp.Records})
	}
	res.Digest, res.PayloadDigest = combineParts(all, false), combineParts(all, true)
	for _, f := range byIndex {
		if f.Proof.Failed {
			return res, exitcode.Unverifiedf("verification failed in shard %s (%s): committed offsets of a group with no live member changed during its replay", f.Shard.Shard, shown(f))
		}
	}
	return res, nil
}

// sameRun checks that every file is a shard of the same replay.
func sameRun(files []NamedShardDigest) error {
	a := files[0]
	for _, b := range files[1:] {
		differ := func(what, x, y string) error {
			return fmt.Errorf("%s and %s are not shards of one replay: %s %s vs %s", shown(a), shown(b), what, x, y)
		}
		switch {
		case a.DigestVersion != b.DigestVersion || a.FormatVersion != b.FormatVersion:
			return fmt.Errorf("mixed digest versions: %s has digest_version %d, %s has %d: rerun the older shards with one offsetctl", shown(a), a.DigestVersion, shown(b), b.DigestVersion)
		case a.Topic != b.Topic:
			return differ("topic", fmt.Sprintf("%q", a.Topic), fmt.Sprintf("%q", b.Topic))
		case a.Isolation != b.Isolation:
			return differ("--isolation", safetext.Arg(a.Isolation), safetext.Arg(b.Isolation))
		case a.From != b.From:
			return differ("--from", fmt.Sprintf("%q", a.From), fmt.Sprintf("%q", b.From))
		case a.Until != b.Until:
			return differ("--until", fmt.Sprintf("%q", a.Until), fmt.Sprintf("%q", b.Until))
		case a.Shard.Count != b.Shard.Count:
			return fmt.Errorf("shard count mismatch: %s is shard %s, %s is shard %s", shown(a), a.Shard.Shard, shown(b), b.Shard.Shard)
		case a.TopicPartitions != b.TopicPartitions:
			return differ("topic partition count", fmt.Sprint(a.TopicPartitions), fmt.Sprint(b.TopicPartitions))
		case !slices.Equal(a.Shard.Selected, b.Shard.Selected):
			return differ("selected partitions", formatParts(a.Shard.Selected), formatParts(b.Shard.Selected))
		}
	}
	return nil
}

// coverage checks that the files are each shard exactly once, each with
// its whole share, and returns them in shard order.
func coverage(files []NamedShardDigest) ([]NamedShardDigest, error) {
	n := files[0].Shard.Count
	// A map, not a slice of N: a file may say N = 100,000.
	byIndex := make(map[int]*NamedShardDigest, len(files))
	seen := map[int32]string{}
	for i := range files {
		f := &files[i]
		if prev := byIndex[f.Shard.Index]; prev != nil && prev.Name == f.Name {
			return nil, fmt.Errorf("%s was given twice: name each shard digest file once", shown(*f))
		} else if prev != nil {
			return nil, fmt.Errorf("overlapping shards: %s and %s are both shard %s", shown(*prev), shown(*f), f.Shard.Shard)
		}
		byIndex[f.Shard.Index] = f
		for _, p := range f.Shard.Partitions {
			if other, ok := seen[p]; ok {
				return nil, fmt.Errorf("overlapping shards: partition %d is in %s and in %s", p, other, shown(*f))
			}
			seen[p] = shown(*f)
		}
		var want []int32
		for _, p := range f.Shard.Selected {
			if f.Shard.Owns(p) {
				want = append(want, p)
			}
		}
		if !slices.Equal(want, f.Shard.Partitions) && len(want)+len(f.Shard.Partitions) > 0 {
			return nil, fmt.Errorf("%s: shard %s should cover partitions %s (p mod %d = %d) but covers %s",
				shown(*f), f.Shard.Shard, formatParts(want), n, f.Shard.Index, formatParts(f.Shard.Partitions))
		}
		if f.Stopped != StoppedEnd {
			return nil, fmt.Errorf("%s: shard %s stopped (%s) before the end of its range: its digest covers part of it; rerun that shard", shown(*f), f.Shard.Shard, safetext.Arg(f.Stopped))
		}
	}
	var missing []string
	nMissing := n - len(byIndex)
	for i := 0; i < n && len(missing) < min(nMissing, 10); i++ { // named, then counted
		if byIndex[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if nMissing > 0 {
		named := strings.Join(missing, ",")
		if nMissing > len(missing) {
			named += fmt.Sprintf(" and %d more", nMissing-len(missing))
		}
		var parts []int32 // the selected partitions no file covers
		for _, p := range files[0].Shard.Selected {
			if byIndex[int(p)%n] == nil {
				parts = append(parts, p)
			}
		}
		return nil, missingShards(named, nMissing, n, parts)
	}
	out := make([]NamedShardDigest, n)
	for i, f := range byIndex {
		out[i] = *f
	}
	return out, nil // every index 0..n-1 is in byIndex
}

// missingShards is the error for shards not given: named of n (nMissing
// of them), and the partitions of the range no file covers, in grammar
// for one or several of each ("partitions 1 of the range are in no file"
// read badly).
func missingShards(named string, nMissing, n int, parts []int32) error {
	noun := "shards"
	if nMissing == 1 {
		noun = "shard"
	}
	var where string
	switch len(parts) {
	case 0:
		where = "it covers no partition of the range"
		if nMissing > 1 {
			where = "they cover no partition of the range"
		}
	case 1:
		where = "partition " + formatParts(parts) + " of the range is in no file"
	default:
		where = "partitions " + formatParts(parts) + " of the range are in no file"
	}
	return fmt.Errorf("missing %s: %s of %d not given (%s)", noun, named, n, where)
}

// combineParts is combine (digest.go) over per-partition parts read from
// files: SHA-256 over (int32 p ‖ int64 count ‖ H(p)) in ascending
// partition order, partitions without records left out. payload: "" when
// a partition with records has no payload hash.
func combineParts(parts []ShardPartition, payload bool) string {
	outer := sha256.New()
	var b []byte
	for _, sp := range parts {
		if sp.Records == 0 {
			continue
		}
		h := sp.Hash
		if payload {
			h = sp.PayloadHash
		}
		sum, err := hex.DecodeString(h)
		if err != nil || len(sum) != sha256.Size {
			return ""
		}
		b = b[:0]
		b = binary.BigEndian.AppendUint32(b, uint32(sp.Partition))
		b = binary.BigEndian.AppendUint64(b, uint64(sp.Records))
		b = append(b, sum...)
		outer.Write(b)
	}
	return hex.EncodeToString(outer.Sum(nil))
}

// shown is a file's name for an error line (cut, control characters
// escaped).
func shown(f NamedShardDigest) string { return safetext.Arg(f.Name) }
