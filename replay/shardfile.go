package replay

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// The shard digest file (--digest-out): what one replay, sharded or not,
// covered and its per-partition digests, so that `offsetctl digest merge`
// can combine shards into the digest of one unsharded run. The v1 audit
// digest (digest.go) is already combinable: it is a hash over the
// per-partition (p, count, H(p)) in ascending partition order, so a file
// that keeps those three per partition is enough; no new digest version is
// needed.
const (
	ShardDigestFormat        = "offsetctl-shard-digest"
	ShardDigestFormatVersion = 1
	// maxShardDigestBytes bounds the file read: a partition takes about
	// 250 bytes, so 16 MiB is over 60,000 partitions.
	maxShardDigestBytes = 16 << 20
)

// ShardDigest is the content of a shard digest file.
type ShardDigest struct {
	Format        string `json:"format"`
	FormatVersion int    `json:"format_version"`
	// DigestVersion is the audit digest construction (DigestVersion).
	DigestVersion int    `json:"digest_version"`
	Topic         string `json:"topic"`
	Isolation     string `json:"isolation"`
	// From and Until are the range as typed (--from, --until): shards of
	// one range were given the same.
	From  string `json:"from"`
	Until string `json:"until"`
	// TopicPartitions is the topic's partition count when the shard ran.
	TopicPartitions int       `json:"topic_partitions"`
	Shard           ShardInfo `json:"shard"`
	Stopped         string    `json:"stopped"`
	Records         int64     `json:"records"`
	// Digest and PayloadDigest are this shard's own digests (over its
	// partitions only).
	Digest        string           `json:"digest"`
	PayloadDigest string           `json:"payload_digest,omitempty"`
	Partitions    []ShardPartition `json:"partitions"`
	Proof         ShardProof       `json:"proof"`
	WrittenAt     time.Time        `json:"written_at"`
}

// ShardPartition is one partition's range and its digest parts.
type ShardPartition struct {
	Partition int32 `json:"partition"`
	From      int64 `json:"from"`
	To        int64 `json:"to"`
	Records   int64 `json:"records"`
	// Hash is H(p) of digest.go in hex ("" for a partition without
	// records); PayloadHash the same for the payload digest.
	Hash        string `json:"hash,omitempty"`
	PayloadHash string `json:"payload_hash,omitempty"`
}

// ShardProof is the shard's proof, in short.
type ShardProof struct {
	Skipped       bool   `json:"skipped"`
	Unchanged     bool   `json:"unchanged"`
	Failed        bool   `json:"failed"`
	GroupsChecked int    `json:"groups_checked"`
	Error         string `json:"error,omitempty"`
}

// DigestFileOptions asks Run to write a shard digest file.
type DigestFileOptions struct {
	Path string
	// From and Until are --from and --until as typed, recorded in the file.
	From, Until string
}

// partSum is one partition's digest parts (Result.sums).
type partSum struct {
	n          int64
	h, payload []byte
}

// partitionSums takes the per-partition sums out of the hashes (Sum does
// not change a hash's state).
func partitionSums(order []int32, hashes map[int32]*partHash) map[int32]partSum {
	out := make(map[int32]partSum, len(order))
	for _, p := range order {
		ph := hashes[p]
		if ph == nil || ph.n == 0 {
			continue
		}
		s := partSum{n: ph.n, h: ph.h.Sum(nil)}
		if ph.payload != nil {
			s.payload = ph.payload.Sum(nil)
		}
		out[p] = s
	}
	return out
}

// runWithDigestFile runs the replay and then writes its shard digest file.
// An existing file is refused before anything is read (a digest is never
// overwritten).
func runWithDigestFile(run func(Options) (*Result, error), opts Options) (*Result, error) {
	df := *opts.DigestFile
	switch err := durable.CheckNew(df.Path); {
	case errors.Is(err, fs.ErrExist):
		return nil, exitcode.Usagef("--digest-out %s already exists: a digest file is never overwritten; choose another name", safetext.Arg(df.Path))
	case durable.UserPath(err):
		return nil, exitcode.Usagef("--digest-out %s cannot be created: %v", safetext.Arg(df.Path), err)
	case err != nil:
		return nil, fmt.Errorf("--digest-out %s: %w", safetext.Arg(df.Path), err)
	}
	opts.DigestFile = nil
	opts.fixedPartitions = true // the file records the partition count (a --follow warns of added ones)
	res, err := run(opts)
	if res == nil {
		return res, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	sd := NewShardDigest(res, df, now())
	if werr := WriteShardDigest(df.Path, sd); werr != nil {
		werr = fmt.Errorf("writing the digest file: %w", werr)
		if err == nil {
			err = werr
		} else {
			err = fmt.Errorf("%w; also %w", err, werr)
		}
	} else {
		res.DigestFile = df.Path
	}
	return res, err
}

// NewShardDigest builds the file's content from a finished replay.
func NewShardDigest(res *Result, df DigestFileOptions, at time.Time) ShardDigest {
	sd := ShardDigest{Format: ShardDigestFormat, FormatVersion: ShardDigestFormatVersion, DigestVersion: res.DigestVersion,
		Topic: res.Topic, Isolation: res.Isolation, From: df.From, Until: df.Until, TopicPartitions: res.topicPartitions,
		Stopped: res.Stopped, Records: res.Records, Digest: res.Digest, PayloadDigest: res.PayloadDigest,
		Partitions: make([]ShardPartition, 0, len(res.Partitions)), WrittenAt: at.UTC()}
	if res.Shard != nil {
		sd.Shard = *res.Shard
	} else {
		sd.Shard = ShardInfo{Shard: Shard{Index: 0, Count: 1}, Partitions: []int32{}, Selected: []int32{}}
		for _, pr := range res.Partitions {
			sd.Shard.Partitions = append(sd.Shard.Partitions, pr.Partition)
			sd.Shard.Selected = append(sd.Shard.Selected, pr.Partition)
		}
	}
	for _, pr := range res.Partitions {
		sp := ShardPartition{Partition: pr.Partition, From: pr.From, To: pr.To, Records: pr.Records}
		if s, ok := res.sums[pr.Partition]; ok {
			sp.Hash = hex.EncodeToString(s.h)
			if s.payload != nil {
				sp.PayloadHash = hex.EncodeToString(s.payload)
			}
		}
		sd.Partitions = append(sd.Partitions, sp)
	}
	v := res.Verification
	sd.Proof = ShardProof{Skipped: v.Skipped, Unchanged: v.Unchanged, Failed: len(v.Failed()) > 0, GroupsChecked: v.GroupsChecked, Error: v.Error}
	return sd
}

// WriteShardDigest writes sd to path: a new file (O_EXCL, never an
// overwrite), fsynced, then its directory fsynced, so a digest that was
// reported is on disk.
func WriteShardDigest(path string, sd ShardDigest) error {
	data, err := json.MarshalIndent(sd, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ReadShardDigestFile reads and checks a shard digest file: a regular file
// of at most 16 MiB. Any problem is bad input (exit 2) naming the file.
func ReadShardDigestFile(path string) (ShardDigest, error) {
	name := safetext.Arg(path)
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return ShardDigest{}, exitcode.Usagef("%s: %v", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ShardDigest{}, exitcode.Usagef("%s: %v", name, err)
	}
	if !st.Mode().IsRegular() {
		return ShardDigest{}, exitcode.Usagef("%s: not a regular file", name)
	}
	if st.Size() > maxShardDigestBytes {
		return ShardDigest{}, exitcode.Usagef("%s: %d bytes, larger than a shard digest file can be (16 MiB)", name, st.Size())
	}
	sd, err := ReadShardDigest(f)
	if err != nil {
		return sd, exitcode.Usagef("%s: not a valid shard digest file: %s", name, safetext.Arg(err.Error()))
	}
	return sd, nil
}

// ReadShardDigest decodes and checks a shard digest (at most 16 MiB are
// read; unknown fields are refused, so a file from another tool or a later
// format is not half-understood).
func ReadShardDigest(r io.Reader) (ShardDigest, error) {
	var sd ShardDigest
	data, err := io.ReadAll(io.LimitReader(r, maxShardDigestBytes+1))
	if err != nil {
		return sd, err
	}
	if len(data) > maxShardDigestBytes {
		return sd, errors.New("larger than 16 MiB")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sd); err != nil {
		return ShardDigest{}, err
	}
	if dec.More() {
		return ShardDigest{}, errors.New("data after the JSON object")
	}
	return sd, sd.check()
}

// check validates what merge relies on.
func (sd ShardDigest) check() error {
	switch {
	case sd.Format != ShardDigestFormat:
		return fmt.Errorf("format is not %q", ShardDigestFormat)
	case sd.FormatVersion != ShardDigestFormatVersion:
		return fmt.Errorf("format_version %d: this offsetctl reads version %d", sd.FormatVersion, ShardDigestFormatVersion)
	case sd.DigestVersion < 1:
		return fmt.Errorf("digest_version %d", sd.DigestVersion)
	case sd.Topic == "":
		return errors.New("no topic")
	case sd.Shard.Count < 1 || sd.Shard.Count > MaxShards || sd.Shard.Index < 0 || sd.Shard.Index >= sd.Shard.Count:
		return fmt.Errorf("shard %d/%d is not 0 ≤ I < N ≤ %d", sd.Shard.Index, sd.Shard.Count, MaxShards)
	case !isHex64(sd.Digest) || (sd.PayloadDigest != "" && !isHex64(sd.PayloadDigest)):
		return errors.New("digest is not 64 hex digits")
	case !strictlyAscending(sd.Shard.Selected) || !strictlyAscending(sd.Shard.Partitions):
		return errors.New("shard partitions are not ascending non-negative partition numbers")
	}
	var total int64
	var parts []int32
	for _, sp := range sd.Partitions {
		switch {
		case sp.From < 0 || sp.To < sp.From || sp.Records < 0:
			return fmt.Errorf("partition %d: range %d..%d with %d records", sp.Partition, sp.From, sp.To, sp.Records)
		case sp.Records > sp.To-sp.From:
			// A range of to-from offsets holds at most that many records
			// (fewer with transaction markers).
			return fmt.Errorf("partition %d: %d records cannot fit in range %d..%d (%d offsets)", sp.Partition, sp.Records, sp.From, sp.To, sp.To-sp.From)
		case sp.Hash != "" && !isHex64(sp.Hash):
			return fmt.Errorf("partition %d: hash is not a 64-hex-digit SHA-256", sp.Partition)
		case sp.PayloadHash != "" && !isHex64(sp.PayloadHash):
			return fmt.Errorf("partition %d: payload_hash is not a 64-hex-digit SHA-256", sp.Partition)
		case sp.Records > 0 && sp.Hash == "":
			return fmt.Errorf("partition %d: %d records but no hash", sp.Partition, sp.Records)
		case sp.Records == 0 && (sp.Hash != "" || sp.PayloadHash != ""):
			return fmt.Errorf("partition %d: a hash but no records", sp.Partition)
		}
		total += sp.Records
		parts = append(parts, sp.Partition)
	}
	if !slices.Equal(parts, sd.Shard.Partitions) && !(len(parts) == 0 && len(sd.Shard.Partitions) == 0) {
		return errors.New("the partitions listed differ from the shard's partitions")
	}
	if total != sd.Records {
		return fmt.Errorf("records %d, but the partitions hold %d", sd.Records, total)
	}
	// The file's own digests must be the ones its partitions give (what
	// merge combines): a hand edit or corruption of either is refused.
	if got := combineParts(sd.Partitions, false); got != sd.Digest {
		return fmt.Errorf("digest %s is not the digest of its partitions (%s): the file was edited or is corrupt", shortHash(sd.Digest), shortHash(got))
	}
	if sd.PayloadDigest != "" {
		if got := combineParts(sd.Partitions, true); got != sd.PayloadDigest {
			return fmt.Errorf("payload_digest %s is not the payload digest of its partitions (%s): the file was edited or is corrupt", shortHash(sd.PayloadDigest), orNoneHash(got))
		}
	}
	return nil
}

func strictlyAscending(ps []int32) bool {
	for i, p := range ps {
		if p < 0 || (i > 0 && p <= ps[i-1]) {
			return false
		}
	}
	return true
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// shortHash is a hash's first 12 digits, for an error line.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

func orNoneHash(h string) string {
	if h == "" {
		return "a partition has no payload_hash"
	}
	return shortHash(h)
}
