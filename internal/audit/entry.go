// Package audit records every change offsetctl makes to a cluster (and
// every replay) as one JSON line in an append-only log, and reads the log
// back for history, undo, snapshot and diff. It imports admin; admin never
// imports audit.
//
// The log format, version 2: UTF-8 JSON Lines, one Entry per line, each
// line written with a single write(2) on a file opened O_APPEND, then
// fsynced. Readers ignore unknown fields (newer writers may add some) and
// a torn last line (a writer killed mid-write). V says which version wrote
// the entry; a change of meaning of an existing field bumps it.
//
// Version 2 is write-ahead: a change to a cluster is two lines, an intent
// (Kind "intent") appended and fsynced before the first request that can
// change anything, and an outcome (Kind "outcome", Intent naming the
// intent's id) once the outcome is known. Join folds them into one entry
// per change; an intent without its outcome reads as Unknown. A command
// that stopped before any such request (refused, bad plan) and a replay
// are one self-contained line (no Kind), as every version-1 line is.
package audit

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// Version is the format version written in Entry.V.
const Version = 2

// The kinds of a version-2 line; "" is a self-contained entry.
const (
	KindIntent  = "intent"
	KindOutcome = "outcome"
)

// The actions an entry records.
const (
	ActReset         = "reset"
	ActDeleteOffsets = "delete-offsets"
	ActDeleteGroup   = "delete-group"
	ActUndo          = "undo"
	ActReplay        = "replay"
	ActBackfill      = "backfill"
)

// The outcomes. A dry run changes nothing and is not logged. They are
// decided from what the broker acknowledged and what a read-back showed,
// never from which step returned an error.
const (
	// Applied: the broker acknowledged every planned change (a
	// transaction's EndTxn was answered, or a lost answer was read back
	// as committed) and the read-back found it, or got no answer.
	Applied = "applied"
	// Unverified: the broker acknowledged every planned change, but the
	// read-back found some partitions not holding their planned offset
	// (their Change.Error says "verify: ..."): a consumer committed
	// meanwhile, or the topic was deleted. The change was made.
	Unverified = "unverified"
	// Refused: the guard (live members, a moved group) or a check
	// refused before anything was sent; nothing changed.
	Refused = "refused"
	// Failed: nothing was changed (or the replay failed).
	Failed = "failed"
	// Partly: some changes were made and some were not (a --non-atomic
	// reset cut between its commits, deletes after a transaction, one
	// group of several).
	Partly = "partly"
	// Unknown: a request that could change the cluster got no answer and
	// nothing settled it, or the run left an intent and no outcome (it
	// was killed): history --verify ID reads which it is.
	Unknown = "unknown"
	// Partial is version 1's name for Partly; Join reads it as Partly.
	Partial = "partial"
)

// Change is one partition of a group: its committed offset before and
// after. nil means no commit (the group had none, or it was deleted), the
// same meaning as replay.Change. Error says why a planned change was not
// made; a change without Error in an entry whose Outcome is applied or
// partial was made.
type Change struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Before    *int64 `json:"before"`
	After     *int64 `json:"after"`
	Error     string `json:"error,omitempty"`
}

// Entry is one line of the log: one command that changed a cluster, or
// one replay.
type Entry struct {
	V  int    `json:"v"`
	ID string `json:"id"`
	// Kind is KindIntent, KindOutcome or "" (a self-contained entry);
	// Intent is, in an outcome, the id of its intent.
	Kind   string    `json:"kind,omitempty"`
	Intent string    `json:"intent,omitempty"`
	Time   time.Time `json:"time"`
	Action string    `json:"action"`
	// Who and where.
	User      string `json:"user"`
	Host      string `json:"host"`
	ClusterID string `json:"cluster_id"`
	Profile   string `json:"profile,omitempty"`
	// Brokers is the bootstrap list the command connected through (a
	// flag, the profile, a properties file or KAFKA_BROKERS): with the
	// connection flags in Command, how to reach ClusterID again.
	Brokers []string `json:"brokers,omitempty"`
	// Command is the argv (without the program name), secrets redacted.
	Command []string `json:"command"`
	Groups  []string `json:"groups"`
	Topics  []string `json:"topics"`
	// SkippedLive are the groups of Groups that a selection (--all-groups,
	// --regex) skipped for their live members: nothing was sent for them,
	// and the change failed for them (history --group G says G was
	// skipped, not changed). Entries written before it was added hold
	// such groups in Groups only.
	SkippedLive []string `json:"skipped_live,omitempty"`
	// ForcedOver are, for an undo of a change whose outcome is unknown
	// run with --force, the changes recorded after that change that had
	// touched its partitions: the undo restored its backup over them.
	ForcedOver []string `json:"forced_over,omitempty"`
	// Partitions counts the planned partitions; Applied those changed
	// and read back.
	Partitions int `json:"partitions"`
	// Applied counts the partitions changed as planned (version 1: also
	// those written with their own offset). Written (version 2) counts
	// the partitions whose write the broker acknowledged or left
	// unanswered (not those of an aborted transaction, nor refused
	// ones), and Changed the acknowledged ones whose committed offset
	// actually moved (After differs from Before): a reset to the current
	// offsets writes every partition and changes none. Applied and
	// Changed are nil (JSON null) when they are not known: in an intent,
	// and in a change whose outcome is Unknown (ForgetUnknownCounts).
	Applied *int     `json:"applied"`
	Written *int     `json:"written,omitempty"`
	Changed *int     `json:"changed,omitempty"`
	Changes []Change `json:"changes"`
	// ChangesFile holds the changes instead of Changes when there are
	// more than MaxInlineChanges (a file name in the log's directory):
	// ChangesCount rows, ChangesSHA256 its hex SHA-256, checked on read.
	// One entry stays a bounded line however large the change.
	ChangesFile   string `json:"changes_file,omitempty"`
	ChangesSHA256 string `json:"changes_sha256,omitempty"`
	ChangesCount  int    `json:"changes_count,omitempty"`
	// Backup is the backup file written before the change (absolute
	// path) and BackupSHA256 its hex SHA-256, checked by undo.
	Backup       string `json:"backup,omitempty"`
	BackupSHA256 string `json:"backup_sha256,omitempty"`
	// UndoOf is the entry an undo reverted. OtherClusterID is, for an
	// undo run with --other-cluster, the cluster id that entry records:
	// not ClusterID, the cluster this undo changed.
	UndoOf         string `json:"undo_of,omitempty"`
	OtherClusterID string `json:"other_cluster_id,omitempty"`
	// Replays: records read, the digests and the proof's verdict
	// (unchanged, changed, skipped or error).
	Records       *int64 `json:"records,omitempty"`
	Digest        string `json:"digest,omitempty"`
	PayloadDigest string `json:"payload_digest,omitempty"`
	Proof         string `json:"proof,omitempty"`
	// Backfill target topic and copies produced.
	Target   string `json:"target,omitempty"`
	Produced *int64 `json:"produced,omitempty"`
	// Checkpoint is a backfill's --checkpoint file (absolute path), and
	// PossibleDuplicates the copies its resume may have duplicated.
	// TransactionalID is a backfill's --transactional-id. The intent holds
	// them too: a run killed after it is resumed with them (CheckWords).
	Checkpoint         string `json:"checkpoint,omitempty"`
	TransactionalID    string `json:"transactional_id,omitempty"`
	PossibleDuplicates *int64 `json:"possible_duplicates,omitempty"`

	Outcome    string `json:"outcome"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	// NoOutcome: an intent whose outcome was never recorded (Join): its
	// ExitCode and DurationMs are not known (the 0 of the intent line).
	NoOutcome bool `json:"-"`
}

// Count is n as an entry's count (Applied, Written, Changed).
func Count(n int) *int { return &n }

// ForgetUnknownCounts clears the counts a change whose outcome is Unknown
// cannot know: which of its partitions were applied and changed. A 0
// there read as "nothing changed" though --verify may find the change
// applied. Written stays: the partitions sent, acknowledged or not.
func (e *Entry) ForgetUnknownCounts() {
	if e.Outcome == Unknown {
		e.Applied, e.Changed = nil, nil
	}
}

// crockford is the ULID alphabet: no I, L, O or U, so an id read aloud or
// retyped is unambiguous, and its byte order is its numeric order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewID returns a ULID-shaped id: 26 characters, the first 10 the unix
// milliseconds of at and the rest 80 random bits, so ids sort by time as
// strings and two writers in the same millisecond do not collide.
func NewID(at time.Time) string {
	var rnd [10]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand never fails on supported platforms
	return encodeID(uint64(at.UnixMilli()), rnd)
}

func encodeID(ms uint64, rnd [10]byte) string {
	var b [26]byte
	for i := 9; i >= 0; i-- {
		b[i] = crockford[ms&31]
		ms >>= 5
	}
	hi := uint64(binary.BigEndian.Uint16(rnd[0:2]))
	lo := binary.BigEndian.Uint64(rnd[2:10])
	// 80 bits as 16 characters of 5 bits, most significant first.
	for i := 25; i >= 10; i-- {
		b[i] = crockford[lo&31]
		lo = lo>>5 | (hi&31)<<59
		hi >>= 5
	}
	return string(b[:])
}

// Outcome classifies a finished command that reports no outcome of its
// own (a replay, a backfill, a refusal): refused when the guard stopped
// it, applied when no error, failed when nothing was applied, else partly.
func Outcome(err error, refused bool, applied int) string {
	switch {
	case refused:
		return Refused
	case err == nil:
		return Applied
	case applied == 0:
		return Failed
	}
	return Partly
}

// Combine is the outcome of a change made of independent parts (the
// groups of a reset), from each part's outcome: all the same is that
// outcome (refused and failed both changed nothing: failed); any unknown
// is unknown, since the cluster may be in either state; every part
// applied or unverified is unverified; otherwise some parts changed and
// some did not: partly.
func Combine(parts []string) string {
	if len(parts) == 0 {
		return Failed
	}
	same, changedNone, unknown, changedAll := true, true, false, true
	for _, p := range parts {
		same = same && p == parts[0]
		changedNone = changedNone && (p == Failed || p == Refused)
		unknown = unknown || p == Unknown
		changedAll = changedAll && (p == Applied || p == Unverified)
	}
	switch {
	case same:
		return parts[0]
	case unknown:
		return Unknown
	case changedNone:
		return Failed
	case changedAll:
		return Unverified
	}
	return Partly
}
