package replay

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/coordretry"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// The job of an exactly-once backfill's position.
//
// A rerun with a transactional id resumes from the positions committed
// under it (PositionGroup). Those said nothing of what they were the
// position of: a second backfill that reused the id (another target,
// another range) started each partition at the first one's position,
// skipped every record before it, and reported "complete" with a gap
// (after a complete first run it copied nothing at all). So each position
// is committed with the job it belongs to, in the offset's metadata
// string (OffsetCommit and TxnOffsetCommit carry one per partition, kept
// with the offset and committed, or discarded, with it in the same
// transaction): what a checkpoint records as its job (CheckpointJob: both
// clusters, the topics and their ids, --from, --until and --partitions as
// typed, --isolation, --partitioner, --source-header), as JSON:
//
//	{"format":"offsetctl-backfill-position","v":1,"job":{...},"copied":N}
//
// copied is how many records of that source partition the backfill has
// copied, over all its runs (left out when an earlier run resumed from a
// position that recorded none). A run reads the positions before its
// audit intent and before it takes the id over (a plain OffsetFetch: that
// changes nothing), and refuses (exit 2, nothing done) positions of
// another job; it reads them again, stable, once it holds the id (a
// transaction of the last holder that was completing is then visible)
// and checks again.
//
// Positions without metadata were written by an offsetctl before this
// format: their job is not known. On the source topic they are taken as
// this backfill's, with a warning (the usual case is the same command
// rerun across an upgrade; refusing it would strand a backfill half-way),
// and the first transaction records the job, so every later run is
// checked. On another topic they are another backfill's, and refused.
// Metadata that is not this format (a newer version's, or another
// program's commits in the group) is refused.

// Position metadata format and version.
const (
	positionFormat  = "offsetctl-backfill-position"
	positionVersion = 1
)

// JobRange is a backfill's range as typed on the command line: what the
// job of its checkpoint or position says of it.
type JobRange struct {
	From, Until, Partitions string

	isolation string // set by Run: part of the job
}

// positionMeta is the metadata committed with each position.
type positionMeta struct {
	Format string        `json:"format"`
	V      int           `json:"v"`
	Job    CheckpointJob `json:"job"`
	Copied *int64        `json:"copied,omitempty"`
}

// maxJobField bounds each free-form string of a position's job: a broker
// refuses a commit whose metadata is longer than offset.metadata.max.bytes
// (4096 by default) with OFFSET_METADATA_TOO_LARGE, and --from, --until
// and --partitions as typed can be far longer (a per-partition list).
// A longer value is kept as its SHA-256, which still compares. Topic
// names are at most 249 bytes and ids 36, so a job stays under 2 KiB.
const maxJobField = 160

// positionJob is job with its long strings replaced by their SHA-256.
func positionJob(job CheckpointJob) CheckpointJob {
	for _, s := range []*string{&job.SourceCluster, &job.From, &job.Until, &job.Partitions, &job.Isolation, &job.TargetCluster, &job.Partitioner} {
		if len(*s) > maxJobField {
			sum := sha256.Sum256([]byte(*s))
			*s = "sha256:" + hex.EncodeToString(sum[:])
		}
	}
	return job
}

// encodePosition is the metadata of a position of job; copied nil when
// not known.
func encodePosition(job CheckpointJob, copied *int64) string {
	b, _ := json.Marshal(positionMeta{Format: positionFormat, V: positionVersion, Job: job, Copied: copied})
	return string(b)
}

// Kinds of position metadata.
const (
	metaOurs    = iota // this format and version
	metaNone           // empty: an older offsetctl
	metaForeign        // anything else
)

// decodePosition reads a position's metadata.
func decodePosition(s string) (positionMeta, int) {
	if s == "" {
		return positionMeta{}, metaNone
	}
	var m positionMeta
	if err := json.Unmarshal([]byte(s), &m); err != nil || m.Format != positionFormat || m.V != positionVersion || m.Job.SourceTopic == "" {
		return m, metaForeign
	}
	return m, metaOurs
}

// resumeState is what the positions of a transactional id give a run.
type resumeState struct {
	pos map[int32]int64 // source partition → next offset to copy
	// copied is, per partition with a position that records it, the
	// records copied before this run; unknown names the partitions
	// whose position records no count (an older offsetctl's).
	copied  map[int32]int64
	unknown map[int32]bool
	// legacy: some position records no job (an older offsetctl's).
	legacy bool
}

// fetchPositions reads the position group's committed offsets; stable
// waits for (rather than hides) a transaction that is completing. A read:
// safe to retry (on a fresh cluster the first one meets
// COORDINATOR_NOT_AVAILABLE while the broker creates __consumer_offsets).
func fetchPositions(ctx context.Context, adm *kadm.Client, group string, stable bool) (kadm.OffsetResponses, error) {
	if stable {
		ctx = kadm.RequireStable(ctx)
	}
	var fetched kadm.OffsetResponses
	err := coordretry.Do(ctx, coordretry.Group(group), func() (err error) {
		fetched, err = adm.FetchOffsets(ctx, group)
		return err
	})
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return nil, fmt.Errorf("reading the backfill position (group %s): %w", safetext.Arg(group), err)
	}
	return fetched, nil
}

// judgePositions checks that the positions are this job's and returns
// where each partition resumes: an exit-2 error names what differs.
func (b *backfiller) judgePositions(fetched kadm.OffsetResponses) (resumeState, error) {
	st := resumeState{pos: map[int32]int64{}, copied: map[int32]int64{}, unknown: map[int32]bool{}}
	var all []kadm.OffsetResponse
	fetched.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 { // an error is no evidence; the stable read after the takeover reads again
			all = append(all, o)
		}
	})
	slices.SortFunc(all, func(x, y kadm.OffsetResponse) int {
		return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition))
	})
	for _, o := range all {
		m, kind := decodePosition(o.Metadata)
		switch {
		case kind == metaForeign:
			return st, b.refuseJob("holds offsets that are not a backfill position this offsetctl wrote (a newer version's, or another program's)")
		case o.Topic != b.src:
			return st, b.refuseJob("belongs to another backfill (the source topic differs)")
		case kind == metaOurs:
			if what := m.Job.Differences(b.job); len(what) == 1 {
				return st, b.refuseJob(fmt.Sprintf("belongs to another backfill (%s differs)", what[0]))
			} else if len(what) > 1 {
				return st, b.refuseJob(fmt.Sprintf("belongs to another backfill (%s and %s differ)", strings.Join(what[:len(what)-1], ", "), what[len(what)-1]))
			}
		}
		st.pos[o.Partition] = o.At
		st.legacy = st.legacy || kind == metaNone
		if kind == metaOurs && m.Copied != nil {
			st.copied[o.Partition] = *m.Copied
		} else {
			st.unknown[o.Partition] = true
		}
	}
	return st, nil
}

// refuseJob is the refusal of a rerun whose id's positions are not its
// own.
func (b *backfiller) refuseJob(why string) error {
	id := b.opts.TransactionalID
	return exitcode.Usagef("--transactional-id %s: its position (group %s) %s: this backfill would start where that one stopped; pick a new --transactional-id for it, or rerun the command that wrote the position; nothing was copied",
		safetext.Arg(id), safetext.Arg(PositionGroup(id)), why)
}

// checkJob reads the positions of the transactional id before anything
// can change (no InitProducerId yet) and refuses another job's; it warns
// once of positions that record no job.
func (b *backfiller) checkJob(ctx context.Context, srcAdm, dstAdm *cluster.Admin) error {
	job, err := jobOf(ctx, srcAdm, dstAdm, b.src, b.opts, b.opts.Range, "--transactional-id")
	if err != nil {
		return err
	}
	b.job = positionJob(job)
	fetched, err := fetchPositions(ctx, dstAdm.Client, PositionGroup(b.opts.TransactionalID), false)
	if err != nil {
		return err
	}
	st, err := b.judgePositions(fetched)
	if err != nil {
		return err
	}
	if st.legacy && b.opts.Warnf != nil {
		b.opts.Warnf("--transactional-id %s: its position (group %s) was written by an older offsetctl, which recorded no job: it cannot be checked that it is this backfill's, and it is resumed as such (if it is another backfill's, the records before it are skipped: check the target, and use a new --transactional-id); the backfill's next commit records the job, so the runs after it are checked",
			safetext.Arg(b.opts.TransactionalID), safetext.Arg(PositionGroup(b.opts.TransactionalID)))
	}
	return nil
}

// noteResume says on stderr that the backfill resumes: from which id, at
// which positions, how many records its earlier runs copied.
func (b *backfiller) noteResume(st resumeState) {
	if len(st.pos) == 0 || b.opts.Notef == nil {
		return
	}
	copied := "how many records earlier runs copied is not recorded (a position of an older offsetctl)"
	if len(st.unknown) == 0 {
		var n int64
		for _, c := range st.copied {
			n = addSat(n, c)
		}
		copied = fmt.Sprintf("%d record(s) already copied to %s", n, b.opts.Topic)
	}
	b.opts.Notef("resuming the backfill of --transactional-id %s from its position (group %s) at %s: %s",
		safetext.Arg(b.opts.TransactionalID), safetext.Arg(PositionGroup(b.opts.TransactionalID)), formatPositions(st.pos), copied)
}

// formatPositions renders positions as "0=10,1=10" (at most ten, then a
// count).
func formatPositions(pos map[int32]int64) string {
	s := FormatResume(pos)
	if items := strings.Split(s, ","); len(items) > 10 {
		return strings.Join(items[:10], ",") + fmt.Sprintf(" and %d more", len(items)-10)
	}
	return s
}
