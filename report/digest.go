package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/replay"
)

// shardLines adds a sharded replay's share and its digest file to the
// replay summary's header.
func shardLines(w io.Writer, r *replay.Result) error {
	if s := r.Shard; s != nil {
		if _, err := fmt.Fprintf(w, "SHARD %s  PARTITIONS %s  (%d of the %d selected: p mod %d = %d)\n",
			s.Shard, partList(s.Partitions), len(s.Partitions), len(s.Selected), s.Count, s.Index); err != nil {
			return err
		}
	}
	if r.DigestFile != "" {
		if _, err := fmt.Fprintf(w, "DIGEST-FILE %s\n", safetext.Arg(r.DigestFile)); err != nil {
			return err
		}
	}
	return nil
}

func partList(ps []int32) string {
	if len(ps) == 0 {
		return "none"
	}
	items := make([]string, len(ps))
	for i, p := range ps {
		items[i] = strconv.Itoa(int(p))
	}
	return textlist.Short(items, 12, ",")
}

var (
	mergeShardHeader = []string{"SHARD", "FILE", "PARTITIONS", "RECORDS", "DIGEST", "PROOF"}
	mergePartHeader  = []string{"PARTITION", "SHARD", "FROM", "TO", "RECORDS"}
)

// DigestMerge renders `digest merge`: JSON is the result; the table a
// header with the merged digest, the shards, then the partitions; CSV the
// shard rows, a blank line, the partition rows.
func DigestMerge(w io.Writer, f Format, r *replay.MergeResult) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case CSV:
		if err := WriteCSV(w, mergeShardHeader, mergeShardRows(r)); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		return WriteCSV(w, mergePartHeader, mergePartRows(r))
	}
	if _, err := fmt.Fprintf(w, "TOPIC %s  ISOLATION %s  SHARDS %d  PARTITIONS %d  RECORDS %d\nDIGEST %s\n",
		safetext.Text(r.Topic), safetext.Text(r.Isolation), r.ShardCount, len(r.Partitions), r.Records, r.Digest); err != nil {
		return err
	}
	if r.PayloadDigest != "" {
		if _, err := fmt.Fprintf(w, "PAYLOAD-DIGEST %s\n", r.PayloadDigest); err != nil {
			return err
		}
	}
	verdict := "every shard's proof: all committed offsets unchanged"
	if !r.ProofUnchanged {
		verdict = "not every shard proved its committed offsets unchanged (see the PROOF column)"
	}
	if _, err := fmt.Fprintf(w, "PROOF %s\n\n", verdict); err != nil {
		return err
	}
	if err := WriteTable(w, mergeShardHeader, mergeShardRows(r)); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return WriteTable(w, mergePartHeader, mergePartRows(r))
}

func mergeShardRows(r *replay.MergeResult) [][]string {
	rows := make([][]string, 0, len(r.Shards))
	for _, s := range r.Shards {
		proof := "unchanged"
		switch {
		case s.Proof.Skipped:
			proof = "skipped"
		case s.Proof.Error != "":
			proof = "not taken"
		case s.Proof.Failed:
			proof = "CHANGED"
		case !s.Proof.Unchanged:
			proof = "moved-by-group-consumers"
		}
		rows = append(rows, []string{fmt.Sprintf("%d/%d", s.Index, s.Count), s.File, partList(s.Partitions), I64(s.Records), s.Digest, proof})
	}
	return rows
}

func mergePartRows(r *replay.MergeResult) [][]string {
	rows := make([][]string, 0, len(r.Partitions))
	for _, p := range r.Partitions {
		rows = append(rows, []string{I64(int64(p.Partition)), strconv.Itoa(p.Shard), I64(p.From), I64(p.To), I64(p.Records)})
	}
	return rows
}
