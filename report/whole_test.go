package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/replay"
)

// These tests assert whole outputs: every line of a table, every row and
// column of a CSV, JSON decoded back into its type, and every renderer
// writing through a writer that fails.

func i64p(v int64) *int64 { return &v }

// lagWhole has a row of every kind: normal, a note, no commit (lag
// unknown), an unreadable topic (log start and end unknown, an error), a
// member, and a second group that failed with no rows.
func lagWhole() lag.LagReport {
	return lag.LagReport{Isolation: "uncommitted", Groups: []lag.GroupLag{
		{Group: "g", Type: "classic", State: "Stable", Members: 1, Topics: []string{"secret", "t"}, TotalLag: 16, Partitions: []lag.PartitionLag{
			{Topic: "secret", Partition: 0, LogStart: -1, Committed: i64p(7), LogEnd: -1, Error: "TOPIC_AUTHORIZATION_FAILED"},
			{Topic: "t", Partition: 0, LogStart: 0, Committed: i64p(4), LogEnd: 10, Lag: i64p(6), Member: "m-1", ClientID: "app", Host: "/10.0.0.1"},
			{Topic: "t", Partition: 1, LogStart: 5, Committed: i64p(2), LogEnd: 15, Lag: i64p(13), Note: "3 records expired unread"},
			{Topic: "t", Partition: 2, LogStart: 2, LogEnd: 12, Note: "no committed offset"},
		}},
		{Group: "h", Type: "consumer", State: "Dead", Error: "group does not exist", Partitions: []lag.PartitionLag{}, Topics: []string{}},
	}}
}

func render(t *testing.T, fn func(w *bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sameText(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, want)
	}
}

func TestLagWholeTable(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error { return Lag(w, Table, lagWhole()) })
	want := "" +
		"GROUP g  TYPE classic  STATE Stable  MEMBERS 1  TOTAL-LAG 16\n" +
		"TOPIC   PARTITION  LOG-START  COMMITTED  LOG-END  LAG  MEMBER  CLIENT-ID  HOST       NOTE\n" +
		"secret  0          -          7          -        -    -       -          -          ERROR: TOPIC_AUTHORIZATION_FAILED\n" +
		"t       0          0          4          10       6    m-1     app        /10.0.0.1  -\n" +
		"t       1          5          2          15       13   -       -          -          3 records expired unread\n" +
		"t       2          2          -          12       -    -       -          -          no committed offset\n" +
		"\n" +
		"GROUP h  TYPE consumer  STATE Dead  MEMBERS 0  TOTAL-LAG -  ERROR group does not exist\n"
	sameText(t, "lag table", got, want)
}

func TestLagWholeCSV(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error { return Lag(w, CSV, lagWhole()) })
	want := "" +
		"GROUP,STATE,TOPIC,PARTITION,LOG-START,COMMITTED,LOG-END,LAG,MEMBER,CLIENT-ID,HOST,NOTE,ERROR\n" +
		"g,Stable,secret,0,,7,,,,,,,TOPIC_AUTHORIZATION_FAILED\n" +
		"g,Stable,t,0,0,4,10,6,m-1,app,/10.0.0.1,,\n" +
		"g,Stable,t,1,5,2,15,13,,,,3 records expired unread,\n" +
		"g,Stable,t,2,2,,12,,,,,no committed offset,\n" +
		"h,Dead,,,,,,,,,,,group does not exist\n"
	sameText(t, "lag csv", got, want)

	// With time lag: a TIME-LAG-MS column of milliseconds in CSV, a
	// duration in the table; unknown is empty / "-".
	r := lagWhole()
	r.TimeLag = true
	r.Groups[0].Partitions[1].TimeLagMs = i64p(1500)
	r.Groups[0].Partitions[2].TimeLagMs = i64p(250)
	got = render(t, func(w *bytes.Buffer) error { return Lag(w, CSV, r) })
	want = "" +
		"GROUP,STATE,TOPIC,PARTITION,LOG-START,COMMITTED,LOG-END,LAG,TIME-LAG-MS,MEMBER,CLIENT-ID,HOST,NOTE,ERROR\n" +
		"g,Stable,secret,0,,7,,,,,,,,TOPIC_AUTHORIZATION_FAILED\n" +
		"g,Stable,t,0,0,4,10,6,1500,m-1,app,/10.0.0.1,,\n" +
		"g,Stable,t,1,5,2,15,13,250,,,,3 records expired unread,\n" +
		"g,Stable,t,2,2,,12,,,,,,no committed offset,\n" +
		"h,Dead,,,,,,,,,,,,group does not exist\n"
	sameText(t, "lag csv with time lag", got, want)
	got = render(t, func(w *bytes.Buffer) error { return Lag(w, Table, r) })
	lines := strings.Split(got, "\n")
	if lines[1] != "TOPIC   PARTITION  LOG-START  COMMITTED  LOG-END  LAG  TIME-LAG  MEMBER  CLIENT-ID  HOST       NOTE" ||
		strings.Fields(lines[2])[6] != "-" || strings.Fields(lines[3])[6] != "1s" || strings.Fields(lines[4])[6] != "250ms" {
		t.Errorf("lag table with time lag:\n%s", got)
	}
}

// JSON is the report itself: decoding it gives back every field.
func TestLagJSONDecodesToTheReport(t *testing.T) {
	in := lagWhole()
	in.TimeLag = true // not part of the JSON
	got := render(t, func(w *bytes.Buffer) error { return Lag(w, JSON, in) })
	var back lag.LagReport
	dec := json.NewDecoder(strings.NewReader(got))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	in.TimeLag = false
	if !reflect.DeepEqual(back, in) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", back, in)
	}
	// Unknown numbers are -1 / null, not 0 or 1.
	var raw struct {
		Groups []struct {
			Partitions []map[string]any `json:"partitions"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(got), &raw); err != nil {
		t.Fatal(err)
	}
	p := raw.Groups[0].Partitions[0]
	if p["log_start"] != -1.0 || p["log_end"] != -1.0 || p["lag"] != nil || p["error"] != "TOPIC_AUTHORIZATION_FAILED" {
		t.Errorf("unreadable row %v", p)
	}
}

func TestGroupsWhole(t *testing.T) {
	gs := lag.Summarize(lagWhole(), nil)
	got := render(t, func(w *bytes.Buffer) error { return Groups(w, Table, gs, false) })
	want := "" +
		"GROUP  TYPE      STATE   MEMBERS  TOPICS    TOTAL-LAG  ERROR\n" +
		"g      classic   Stable  1        secret,t  16         topic secret partition 0: TOPIC_AUTHORIZATION_FAILED\n" +
		"h      consumer  Dead    0        -         -          group does not exist\n"
	sameText(t, "groups table", got, want)
	got = render(t, func(w *bytes.Buffer) error { return Groups(w, CSV, gs, false) })
	want = "GROUP,TYPE,STATE,MEMBERS,TOPICS,TOTAL-LAG,ERROR\n" +
		"g,classic,Stable,1,\"secret,t\",16,topic secret partition 0: TOPIC_AUTHORIZATION_FAILED\n" +
		"h,consumer,Dead,0,,,group does not exist\n"
	sameText(t, "groups csv", got, want)
	got = render(t, func(w *bytes.Buffer) error { return Groups(w, JSON, gs, false) })
	var back struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	if err := json.Unmarshal([]byte(got), &back); err != nil || !reflect.DeepEqual(back.Groups, gs) {
		t.Errorf("groups json %s (%v)", got, err)
	}
}

// replayWhole stopped at --max: it has a resume line, a payload digest,
// an incomplete backfill and a proof with a row of each status.
func replayWhole() *replay.Result {
	return &replay.Result{
		Topic: "orders", Isolation: "committed", Records: 3, Bytes: 120, ElapsedMs: 1500, RecordsPerSec: 2,
		Digest: strings.Repeat("ab", 32), DigestVersion: 1, PayloadDigest: strings.Repeat("cd", 32),
		Stopped: replay.StoppedMax, ResumeFrom: "0=2,1=9",
		Partitions: []replay.PartitionResult{
			{Partition: 0, From: 0, To: 2, Records: 2, FirstTs: i64p(1796018400000), LastTs: i64p(1796018400250), LogEnd: 5, Bound: 5, Stop: replay.StoppedMax},
			{Partition: 1, From: 8, To: 9, Records: 1, FirstTs: i64p(1796018401000), LastTs: i64p(1796018401000), LogEnd: 9, Bound: 9, Stop: replay.BoundEnd},
			{Partition: 2, From: 3, To: 3, LogStart: 3, LogEnd: 3, Bound: 3, Stop: replay.BoundUntil},
		},
		Backfill: &replay.BackfillResult{Target: "orders-copy", Partitioner: "same", Produced: 2, Unanswered: 1, Resume: "0=1,1=9",
			Partitions: []replay.BackfillPartition{{Partition: 0, From: 0, Copied: 1, AckedThrough: i64p(0), ResumeFrom: 1}, {Partition: 1, From: 8, Copied: 1, ResumeFrom: 9}}},
		Verification: replay.Verification{GroupsChecked: 2, Groups: []string{"billing", "idle"}, Changes: []replay.Change{
			{Group: "idle", Topic: "orders", Partition: 0, Before: i64p(1), After: i64p(2), Status: replay.StatusChanged},
		}, Rows: []replay.Change{
			{Group: "billing", Topic: "orders", Partition: 0, Before: i64p(4), After: i64p(4), Status: replay.StatusUnchanged, Members: 1},
			{Group: "idle", Topic: "orders", Partition: 0, Before: i64p(1), After: i64p(2), Status: replay.StatusChanged},
			{Group: "idle", Topic: "orders", Partition: 1, After: i64p(3), Status: replay.StatusChanged},
		}},
	}
}

func TestReplayWholeSummary(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, replayWhole()) })
	want := "" +
		"TOPIC orders  ISOLATION committed  RECORDS 3  BYTES 120  ELAPSED 1.5s  RATE 2.0 records/s  STOPPED max\n" +
		"DIGEST " + strings.Repeat("ab", 32) + "\n" +
		"CONTINUE WITH --from 0=2,1=9\n" +
		"PAYLOAD-DIGEST " + strings.Repeat("cd", 32) + "\n" +
		"\n" +
		"PARTITION  FROM  TO  RECORDS  FIRST-TS                  LAST-TS                   STOP\n" +
		"0          0     2   2        2026-11-30T06:00:00.000Z  2026-11-30T06:00:00.250Z  --max\n" +
		"1          8     9   1        2026-11-30T06:00:01.000Z  2026-11-30T06:00:01.000Z  log end\n" +
		"2          3     3   0        -                         -                         --until\n" +
		"TOTAL                3\n" +
		"\n" +
		"BACKFILL to orders-copy (partitioner same): replayed 3, produced 2, INCOMPLETE: resume with --from 0=1,1=9 (1 copies sent without an answer may be in orders-copy already: the resume would copy them again)\n" +
		"PARTITION  FROM  COPIED  ACKED-THROUGH  RESUME-FROM\n" +
		"0          0     1       0              1\n" +
		"1          8     1       -              9\n" +
		"\n" +
		"PROOF 2 group(s) with commits on orders checked before and after: 1 committed offset(s) of groups with no live member CHANGED\n" +
		"GROUP    TOPIC   PARTITION  BEFORE  AFTER  STATUS\n" +
		"billing  orders  0          4       4      unchanged\n" +
		"idle     orders  0          1       2      CHANGED\n" +
		"idle     orders  1          -       3      CHANGED\n"
	sameText(t, "replay summary", got, want)
}

// Each optional summary line appears exactly when its field is set.
func TestReplaySummaryOptionalLines(t *testing.T) {
	r := replayWhole()
	r.ResumeFrom, r.PayloadDigest, r.Backfill = "", "", nil
	r.Stopped = replay.StoppedEnd
	r.Partitions = r.Partitions[1:2]
	r.Verification = replay.Verification{Unchanged: true, GroupsChecked: 0, Groups: []string{}, Changes: []replay.Change{}, Rows: []replay.Change{}}
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
	want := "" +
		"TOPIC orders  ISOLATION committed  RECORDS 3  BYTES 120  ELAPSED 1.5s  RATE 2.0 records/s  STOPPED end\n" +
		"DIGEST " + strings.Repeat("ab", 32) + "\n" +
		"\n" +
		"PARTITION  FROM  TO  RECORDS  FIRST-TS                  LAST-TS                   STOP\n" +
		"1          8     9   1        2026-11-30T06:00:01.000Z  2026-11-30T06:00:01.000Z  log end\n" +
		"\n" +
		"PROOF 0 group(s) with commits on orders checked before and after: all committed offsets unchanged\n"
	sameText(t, "replay summary, nothing optional", got, want)

	r.Verification = replay.Verification{Skipped: true}
	if got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) }); !strings.HasSuffix(got, "log end\n\nPROOF skipped (--no-verify)\n") {
		t.Errorf("skipped proof:\n%s", got)
	}
	r.Verification = replay.Verification{Error: "proof: fetching committed offsets: NOT_COORDINATOR"}
	if got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) }); !strings.HasSuffix(got, "log end\n\nPROOF could not be taken: proof: fetching committed offsets: NOT_COORDINATOR\n") {
		t.Errorf("proof error:\n%s", got)
	}
	r.Verification = replay.Verification{GroupsChecked: 1, Changes: []replay.Change{{Group: "live", Status: replay.StatusMovedByConsumers}},
		Rows: []replay.Change{{Group: "live", Topic: "orders", Partition: 0, Before: i64p(1), After: i64p(5), Status: replay.StatusMovedByConsumers, Members: 2}}}
	if got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) }); !strings.Contains(got, "\nPROOF 1 group(s) with commits on orders checked before and after: 1 committed offset(s) moved by live groups' own consumers; none by the replay\n") {
		t.Errorf("moved by consumers:\n%s", got)
	}
	// A complete, transactional backfill.
	r.Backfill = &replay.BackfillResult{Target: "c", Partitioner: "key", Transactional: true, Produced: 3, Complete: true, Unanswered: 4}
	if got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) }); !strings.Contains(got, "\nBACKFILL to c (partitioner key, transactional): replayed 3, produced 3, complete\nPARTITION  FROM  COPIED  ACKED-THROUGH  RESUME-FROM\n\n") {
		t.Errorf("complete backfill:\n%s", got)
	}
	// Incomplete in a transaction: unanswered copies were aborted, no
	// warning; the same command continues (not --from: another backfill).
	r.Backfill.Complete, r.Backfill.Resume = false, "0=7"
	if got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) }); !strings.Contains(got, "produced 3, INCOMPLETE: rerun the same command to resume from the committed position\n") {
		t.Errorf("incomplete transactional backfill:\n%s", got)
	}
}

func TestReplayWholeCSVAndJSON(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, CSV, replayWhole()) })
	want := "" +
		"PARTITION,FROM,TO,RECORDS,FIRST-TS,LAST-TS,STOP\n" +
		"0,0,2,2,2026-11-30T06:00:00.000Z,2026-11-30T06:00:00.250Z,max\n" +
		"1,8,9,1,2026-11-30T06:00:01.000Z,2026-11-30T06:00:01.000Z,end\n" +
		"2,3,3,0,-,-,until\n" +
		"\n" +
		"GROUP,TOPIC,PARTITION,BEFORE,AFTER,STATUS\n" +
		"billing,orders,0,4,4,unchanged\n" +
		"idle,orders,0,1,2,CHANGED\n" +
		"idle,orders,1,-,3,CHANGED\n" +
		"\n" +
		"TOPIC,ISOLATION,RECORDS,BYTES,STOPPED,DIGEST,PAYLOAD-DIGEST,RESUME-FROM\n" +
		"orders,committed,3,120,max,abababababababababababababababababababababababababababababababab,cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd,\"0=2,1=9\"\n"
	sameText(t, "replay csv", got, want)

	in := replayWhole()
	got = render(t, func(w *bytes.Buffer) error { return Replay(w, JSON, in) })
	var back replay.Result
	dec := json.NewDecoder(strings.NewReader(got))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, in) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", back, *in)
	}
}

func TestResetWholeRows(t *testing.T) {
	p := admin.Plan{Groups: []admin.GroupPlan{
		{Group: "g", State: "Empty", Partitions: []admin.PartitionPlan{
			{Topic: "t", Partition: 0, LogStart: 3, LogEnd: 20, Current: i64p(15), Target: i64p(10), Delta: i64p(-5), Note: "clamped"},
			{Topic: "t", Partition: 1, LogStart: -1, LogEnd: -1, Current: i64p(2), Error: "listing offsets: NOT_LEADER"},
		}},
		{Group: "none", State: "Empty", Note: "no rows in scope"},
		{Group: "bad", State: "Dead", Error: "describing group: COORDINATOR_NOT_AVAILABLE"},
		{Group: "blank", State: "Empty"},
	}}
	got := render(t, func(w *bytes.Buffer) error { return Reset(w, Table, p, false) })
	want := "" +
		"GROUP  TOPIC  PARTITION  LOG-START  CURRENT  TARGET  DELTA  NOTE\n" +
		"g      t      0          3          15       10      -5     clamped\n" +
		"g      t      1          -          2        -       -      ERROR: listing offsets: NOT_LEADER\n" +
		"none   -      -          -          -        -       -      no rows in scope\n" +
		"bad    -      -          -          -        -       -      ERROR: describing group: COORDINATOR_NOT_AVAILABLE\n" +
		"blank  -      -          -          -        -       -      nothing in scope\n"
	sameText(t, "reset table", got, want)
	got = render(t, func(w *bytes.Buffer) error { return Reset(w, CSV, p, false) })
	want = "" +
		"GROUP,TOPIC,PARTITION,LOG-START,LOG-END,CURRENT,TARGET,DELTA,NOTE,ERROR\n" +
		"g,t,0,3,20,15,10,-5,clamped,\n" +
		"g,t,1,,,2,,,,listing offsets: NOT_LEADER\n" +
		"none,,,,,,,,no rows in scope,\n" +
		"bad,,,,,,,,,describing group: COORDINATOR_NOT_AVAILABLE\n" +
		"blank,,,,,,,,,\n"
	sameText(t, "reset csv", got, want)

	// JSON: an array unless exactly one group was named.
	got = render(t, func(w *bytes.Buffer) error { return Reset(w, JSON, p, false) })
	var arr []admin.GroupPlan
	if err := json.Unmarshal([]byte(got), &arr); err != nil || !reflect.DeepEqual(arr, p.Groups) {
		t.Errorf("reset json array (%v):\n%s", err, got)
	}
	one := admin.Plan{Groups: p.Groups[:1]}
	got = render(t, func(w *bytes.Buffer) error { return Reset(w, JSON, one, true) })
	var obj admin.GroupPlan
	if err := json.Unmarshal([]byte(got), &obj); err != nil || !reflect.DeepEqual(obj, p.Groups[0]) {
		t.Errorf("reset json object (%v):\n%s", err, got)
	}
	if got := render(t, func(w *bytes.Buffer) error { return Reset(w, JSON, one, false) }); !strings.HasPrefix(got, "[") {
		t.Errorf("several groups named: want an array, got %s", got)
	}
	if got := render(t, func(w *bytes.Buffer) error { return Reset(w, JSON, admin.Plan{}, false) }); got != "[]\n" {
		t.Errorf("no groups: %q", got)
	}
}

func TestDeleteWholeRows(t *testing.T) {
	p := admin.DeleteOffsetsPlan{Group: "g", Partitions: []admin.DeleteOffsetsRow{
		{Topic: "t", Partition: 0, Current: i64p(5), Status: "deleted"},
		{Topic: "t", Partition: 1, Status: "failed", Error: "GROUP_SUBSCRIBED_TO_TOPIC"},
	}}
	sameText(t, "delete-offsets table", render(t, func(w *bytes.Buffer) error { return DeleteOffsets(w, Table, p) }), ""+
		"GROUP  TOPIC  PARTITION  CURRENT  STATUS\n"+
		"g      t      0          5        deleted\n"+
		"g      t      1          -        failed: GROUP_SUBSCRIBED_TO_TOPIC\n")
	sameText(t, "delete-offsets csv", render(t, func(w *bytes.Buffer) error { return DeleteOffsets(w, CSV, p) }), ""+
		"GROUP,TOPIC,PARTITION,CURRENT,STATUS,ERROR\n"+
		"g,t,0,5,deleted,\n"+
		"g,t,1,,failed,GROUP_SUBSCRIBED_TO_TOPIC\n")
	var backP admin.DeleteOffsetsPlan
	if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return DeleteOffsets(w, JSON, p) })), &backP); err != nil || !reflect.DeepEqual(backP, p) {
		t.Errorf("delete-offsets json: %+v (%v)", backP, err)
	}

	rows := []admin.DeleteGroupRow{
		{Group: "a", Type: "classic", State: "Empty", Commits: 3, Status: "deleted"},
		{Group: "b", Members: 2, Status: "refused", Error: "NON_EMPTY_GROUP"},
		{Group: "s", Type: "share", Status: "skipped", Skipped: "share group: name it"},
	}
	sameText(t, "delete-group table", render(t, func(w *bytes.Buffer) error { return DeleteGroups(w, Table, rows) }), ""+
		"GROUP  TYPE     STATE  MEMBERS  COMMITS  STATUS\n"+
		"a      classic  Empty  0        3        deleted\n"+
		"b      -        -      2        0        refused: NON_EMPTY_GROUP\n"+
		"s      share    -      0        0        skipped: share group: name it\n")
	sameText(t, "delete-group csv", render(t, func(w *bytes.Buffer) error { return DeleteGroups(w, CSV, rows) }), ""+
		"GROUP,TYPE,STATE,MEMBERS,COMMITS,STATUS,ERROR\n"+
		"a,classic,Empty,0,3,deleted,\n"+
		"b,,,2,0,refused,NON_EMPTY_GROUP\n"+
		"s,share,,0,0,skipped: share group: name it,\n")
	var backG struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return DeleteGroups(w, JSON, rows) })), &backG); err != nil || !reflect.DeepEqual(backG.Groups, rows) {
		t.Errorf("delete-group json: %+v (%v)", backG, err)
	}
	if got := render(t, func(w *bytes.Buffer) error { return DeleteGroups(w, JSON, nil) }); got != "{\n  \"groups\": []\n}\n" {
		t.Errorf("no rows: %q", got)
	}
}

func TestVersionWhole(t *testing.T) {
	v := VersionInfo{Version: "1.2.3", Revision: "abc123", Go: "go1.26", OS: "linux", Arch: "amd64"}
	sameText(t, "version", render(t, func(w *bytes.Buffer) error { return Version(w, Table, v) }), "offsetctl 1.2.3 (abc123) go1.26 linux/amd64\n")
	sameText(t, "version csv", render(t, func(w *bytes.Buffer) error { return Version(w, CSV, v) }), "VERSION,REVISION,GO,OS,ARCH\n1.2.3,abc123,go1.26,linux,amd64\n")
	v.Revision = ""
	sameText(t, "version without revision", render(t, func(w *bytes.Buffer) error { return Version(w, Table, v) }), "offsetctl 1.2.3 go1.26 linux/amd64\n")
	var back VersionInfo
	if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return Version(w, JSON, v) })), &back); err != nil || back != v {
		t.Errorf("version json %+v (%v)", back, err)
	}
}

func semanticsWhole() *semantics.Result {
	return &semantics.Result{Events: 60, Batch: 10, CrashAfter: 25, Partitions: 3, WorkDelay: "0s", CommitInterval: "5s", Topic: "events",
		Results: []semantics.ModeResult{
			{Mode: "at-most-once", Group: "g1", Processed: 55, Unique: 55, Lost: 5, CommittedAfter: []semantics.PartitionOffset{{Partition: 0, Offset: 20}, {Partition: 1, Offset: 20}}, Explanation: "lost five"},
			{Mode: "at-least-once", Group: "g2", Processed: 65, Unique: 60, Duplicates: 5, Explanation: "five twice"},
		},
		Replay: &semantics.ReplayResult{FromOffset: 0, Records: 60, Digest: strings.Repeat("0123456789", 4), CommittedUnchanged: true, Verification: replay.Verification{GroupsChecked: 2}},
	}
}

func TestSemanticsWhole(t *testing.T) {
	got := render(t, func(w *bytes.Buffer) error { return Semantics(w, Table, semanticsWhole()) })
	want := "" +
		"60 events over 3 partitions (topic events), batches of 10, crash right after event 25, work delay 0s, commit interval 5s\n" +
		"\n" +
		"MODE           PROCESSED  UNIQUE  DUPLICATES  LOST  COMMITTED-AFTER\n" +
		"at-most-once   55         55      0           5     0:20 1:20\n" +
		"at-least-once  65         60      5           0     -\n" +
		"\n" +
		"at-most-once   lost five\n" +
		"at-least-once  five twice\n" +
		"\n" +
		"replay from offset 0 without a group: 60 of 60 events read (digest 0123456789012345…); committed offsets of 2 group(s) unchanged by it\n"
	sameText(t, "semantics", got, want)
	s := semanticsWhole()
	s.Replay.CommittedUnchanged = false
	s.Replay.Digest = "short"
	if got := render(t, func(w *bytes.Buffer) error { return Semantics(w, Table, s) }); !strings.HasSuffix(got, "(digest short); committed offsets of 2 group(s) CHANGED by it\n") {
		t.Errorf("changed:\n%s", got)
	}
	sameText(t, "semantics csv", render(t, func(w *bytes.Buffer) error { return Semantics(w, CSV, semanticsWhole()) }), ""+
		"MODE,GROUP,PROCESSED,UNIQUE,DUPLICATES,LOST,COMMITTED-AFTER,EXPLANATION\n"+
		"at-most-once,g1,55,55,0,5,0:20 1:20,lost five\n"+
		"at-least-once,g2,65,60,5,0,-,five twice\n")
	if got := render(t, func(w *bytes.Buffer) error { return Semantics(w, Table, nil) }); got != "" {
		t.Errorf("nil result: %q", got)
	}
	counts := []semantics.Count{{File: "a.log", Total: 10, UniqueOffsets: 8, Duplicates: 2}, {File: "b.log", Total: 1, UniqueOffsets: 1}}
	sameText(t, "count", render(t, func(w *bytes.Buffer) error { return SemanticsCount(w, Table, counts) }),
		"a.log: total=10 unique-offsets=8 duplicates=2\nb.log: total=1 unique-offsets=1 duplicates=0\n")
	sameText(t, "count csv", render(t, func(w *bytes.Buffer) error { return SemanticsCount(w, CSV, counts) }),
		"FILE,TOTAL,UNIQUE-OFFSETS,DUPLICATES\na.log,10,8,2\nb.log,1,1,0\n")
	var back []semantics.Count
	if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return SemanticsCount(w, JSON, counts) })), &back); err != nil || !reflect.DeepEqual(back, counts) {
		t.Errorf("count json %+v (%v)", back, err)
	}
	if got := render(t, func(w *bytes.Buffer) error { return SemanticsCount(w, JSON, nil) }); got != "[]\n" {
		t.Errorf("no counts: %q", got)
	}
}

// failingWriter accepts ok bytes, then fails every write; it counts the
// writes attempted after the first failure.
type failingWriter struct {
	ok, written, after int
	failed             bool
}

var errBroken = errors.New("broken pipe")

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.failed {
		f.after++
		return 0, errBroken
	}
	if f.written+len(p) <= f.ok {
		f.written += len(p)
		return len(p), nil
	}
	n := f.ok - f.written
	f.written, f.failed = f.ok, true
	return n, errBroken
}

// Every renderer, in every format, returns the writer's error whichever
// byte fails, and writes nothing more after it (stdout closed under a
// pipe: the command must fail, exit 1, not print half a report and 0).
func TestRenderersReturnWriteErrors(t *testing.T) {
	big := lagWhole()
	for i := 0; i < largeTable+1; i++ { // the text/tabwriter path
		big.Groups[0].Partitions = append(big.Groups[0].Partitions, big.Groups[0].Partitions[1])
	}
	renderers := map[string]func(w io.Writer, f Format) error{
		"lag":       func(w io.Writer, f Format) error { return Lag(w, f, lagWhole()) },
		"lag large": func(w io.Writer, f Format) error { return Lag(w, f, big) },
		"groups":    func(w io.Writer, f Format) error { return Groups(w, f, lag.Summarize(lagWhole(), nil), false) },
		"replay":    func(w io.Writer, f Format) error { return Replay(w, f, replayWhole()) },
		"reset": func(w io.Writer, f Format) error {
			return Reset(w, f, admin.Plan{Groups: []admin.GroupPlan{{Group: "g", Note: "n"}}}, true)
		},
		"delete":    func(w io.Writer, f Format) error { return DeleteGroups(w, f, []admin.DeleteGroupRow{{Group: "a"}}) },
		"semantics": func(w io.Writer, f Format) error { return Semantics(w, f, semanticsWhole()) },
		"count": func(w io.Writer, f Format) error {
			return SemanticsCount(w, f, []semantics.Count{{File: "a"}, {File: "b"}})
		},
		"version":       func(w io.Writer, f Format) error { return Version(w, f, VersionInfo{Version: "1"}) },
		"lag watch csv": func(w io.Writer, f Format) error { return LagWatchCSV(w, lagWhole(), time.Unix(0, 0), true, nil) },
	}
	for name, fn := range renderers {
		for _, f := range []Format{Table, CSV, JSON} {
			var full bytes.Buffer
			if err := fn(&full, f); err != nil {
				t.Fatalf("%s %s: %v", name, f, err)
			}
			step := 1 + full.Len()/64 // every byte of small outputs, 64 points of large ones
			for n := 0; n < full.Len(); n += step {
				fw := &failingWriter{ok: n}
				err := fn(fw, f)
				if !errors.Is(err, errBroken) {
					t.Errorf("%s %s failing after %d of %d bytes: error %v", name, f, n, full.Len(), err)
				}
				if fw.after > 0 {
					t.Errorf("%s %s failing after %d bytes: %d more writes after the error", name, f, n, fw.after)
				}
			}
		}
	}
}

// TestGroupMembersWhole: a static member shows its instance id, another
// none: "-" in the table, empty in CSV, null in JSON (a field docs/lag.md
// lists, so it is never left out).
func TestGroupMembersWhole(t *testing.T) {
	inst := "web-1"
	ms := []lag.MemberRow{
		{Group: "g", MemberID: "m-1", InstanceID: &inst, ClientID: "app", Host: "/10.0.0.1", Partitions: 2},
		{Group: "g", MemberID: "m-2", ClientID: "app", Host: "/10.0.0.2"},
	}
	sameText(t, "table", render(t, func(w *bytes.Buffer) error { return GroupMembers(w, Table, ms) }), ""+
		"GROUP  MEMBER-ID  INSTANCE-ID  CLIENT-ID  HOST       PARTITIONS\n"+
		"g      m-1        web-1        app        /10.0.0.1  2\n"+
		"g      m-2        -            app        /10.0.0.2  0\n")
	sameText(t, "csv", render(t, func(w *bytes.Buffer) error { return GroupMembers(w, CSV, ms) }), ""+
		"GROUP,MEMBER-ID,INSTANCE-ID,CLIENT-ID,HOST,PARTITIONS\n"+
		"g,m-1,web-1,app,/10.0.0.1,2\n"+
		"g,m-2,,app,/10.0.0.2,0\n")
	var got struct {
		Members []map[string]any `json:"members"`
	}
	if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return GroupMembers(w, JSON, ms) })), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Members) != 2 || got.Members[0]["instance_id"] != "web-1" {
		t.Fatalf("json members %v", got.Members)
	}
	if v, ok := got.Members[1]["instance_id"]; !ok || v != nil {
		t.Fatalf("json: a member without an instance id has instance_id %v (present %v), want null", v, ok)
	}
}
