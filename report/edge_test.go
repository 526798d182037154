package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/replay"
)

// A large table of wide characters (CJK, two columns each on a terminal)
// is still aligned by display width: text/tabwriter, the fast path for
// large printable-ASCII tables, counts one column per character.
func TestLargeTableOfWideCharactersStaysAligned(t *testing.T) {
	header := []string{"GROUP", "TOPIC", "NOTE"}
	for _, wide := range []string{"注文", "tópico-é", "x~y"} {
		var rows [][]string
		for i := 0; i <= largeTable; i++ {
			rows = append(rows, []string{fmt.Sprint("g", i), wide, "-"})
		}
		var got, want bytes.Buffer
		if err := WriteTable(&got, header, rows); err != nil {
			t.Fatal(err)
		}
		if err := writeTablewriter(&want, header, rows); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%q: %d rows misaligned:\n%s", wide, len(rows), strings.Join(strings.SplitN(got.String(), "\n", 4)[:3], "\n"))
		}
	}
}

// A group with no rows ahead of others must not end the table: the groups
// after it are printed too.
func TestLagTableGroupWithoutRowsFirst(t *testing.T) {
	r := lagWhole()
	r.Groups = []lag.GroupLag{r.Groups[1], r.Groups[0]}
	got := render(t, func(w *bytes.Buffer) error { return Lag(w, Table, r) })
	if !strings.HasPrefix(got, "GROUP h  TYPE consumer  STATE Dead  MEMBERS 0  TOTAL-LAG -  ERROR group does not exist\n\nGROUP g  TYPE classic") ||
		strings.Count(got, "\n") != 8 || !strings.HasSuffix(got, "no committed offset\n") {
		t.Errorf("lag table:\n%s", got)
	}
}

// An incomplete backfill warns about copies sent without an answer only
// when there are some.
func TestReplayBackfillNoUnansweredNoWarning(t *testing.T) {
	r := replayWhole()
	r.Backfill.Unanswered = 0
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
	if !strings.Contains(got, "produced 2, INCOMPLETE: resume with --from 0=1,1=9\n") {
		t.Errorf("summary:\n%s", got)
	}
}

// A zero delta is 0, not +0; a positive one has its sign.
func TestResetDeltaSigns(t *testing.T) {
	p := admin.Plan{Groups: []admin.GroupPlan{{Group: "g", Partitions: []admin.PartitionPlan{
		{Topic: "t", Partition: 0, LogStart: 0, Current: i64p(5), Target: i64p(5), Delta: i64p(0)},
		{Topic: "t", Partition: 1, LogStart: 0, Current: i64p(5), Target: i64p(6), Delta: i64p(1)},
	}}}}
	got := render(t, func(w *bytes.Buffer) error { return Reset(w, Table, p, true) })
	want := "GROUP  TOPIC  PARTITION  LOG-START  CURRENT  TARGET  DELTA  NOTE\n" +
		"g      t      0          0          5        5       0      -\n" +
		"g      t      1          0          5        6       +1     -\n"
	sameText(t, "deltas", got, want)
}

// --export: three columns (Apache's single-group format) for one group,
// four as soon as there are two.
func TestResetExportColumns(t *testing.T) {
	g := func(name string, off int64) admin.GroupPlan {
		return admin.GroupPlan{Group: name, Partitions: []admin.PartitionPlan{{Topic: "t", Partition: 0, Current: i64p(1), Target: i64p(off), Delta: i64p(off - 1)}}}
	}
	sameText(t, "one group", render(t, func(w *bytes.Buffer) error { return ResetExport(w, admin.Plan{Groups: []admin.GroupPlan{g("a", 7)}}) }), "t,0,7\n")
	sameText(t, "two groups", render(t, func(w *bytes.Buffer) error {
		return ResetExport(w, admin.Plan{Groups: []admin.GroupPlan{g("a", 7), g("b", 9)}})
	}), "a,t,0,7\nb,t,0,9\n")
}

// A digest of 16 characters or fewer is printed whole; a longer one is cut
// to 16 and an ellipsis.
func TestSemanticsDigestCut(t *testing.T) {
	for digest, want := range map[string]string{
		strings.Repeat("a", 16): strings.Repeat("a", 16) + ")",
		strings.Repeat("a", 17): strings.Repeat("a", 16) + "…)",
	} {
		s := semanticsWhole()
		s.Replay = &semantics.ReplayResult{Records: 1, Digest: digest, CommittedUnchanged: true, Verification: replay.Verification{}}
		got := render(t, func(w *bytes.Buffer) error { return Semantics(w, Table, s) })
		if !strings.Contains(got, "(digest "+want) {
			t.Errorf("digest %d chars:\n%s", len(digest), got)
		}
	}
}

// A checkpointed backfill says to rerun the same command (not --from,
// which would be another backfill to the checkpoint) and what the resume
// may have duplicated.
func TestReplayBackfillCheckpointLine(t *testing.T) {
	r := replayWhole()
	r.Backfill.Checkpoint = &replay.CheckpointResult{Path: "bf.ckpt", Resumed: true, PossibleDuplicates: 120, Writes: 3}
	got := render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
	if !strings.Contains(got, "INCOMPLETE: rerun the same command to resume from the checkpoint") ||
		!strings.Contains(got, "CHECKPOINT bf.ckpt: resumed; up to 120 record(s) of orders-copy may be duplicates; 3 write(s), it says not complete\n") {
		t.Errorf("summary:\n%s", got)
	}
	r.Backfill.Complete = true
	r.Backfill.Checkpoint = &replay.CheckpointResult{Path: "bf.ckpt", Resumed: true, AlreadyComplete: true, Complete: true}
	got = render(t, func(w *bytes.Buffer) error { return Replay(w, Table, r) })
	if !strings.Contains(got, "CHECKPOINT bf.ckpt: already complete: nothing copied; 0 write(s), it says complete\n") {
		t.Errorf("summary:\n%s", got)
	}
}

// The streamed lag JSON writes a format character from a group's name
// (a bidi override) as a \u escape, decoding to the same name; the table
// and CSV paths are not put through the JSON escaper.
func TestLagStreamJSONEscapesFormatCharacters(t *testing.T) {
	name := "bill\u202eing"
	var buf bytes.Buffer
	s := NewLagStream(&buf, JSON, lag.LagReport{}, LagStreamOptions{})
	if err := s.Group(lag.GroupLag{Group: name}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "\u202e") || !strings.Contains(out, `bill\u202eing`) {
		t.Fatalf("JSON keeps the override raw:\n%s", out)
	}
	var got struct {
		Groups []struct{ Group string } `json:"groups"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Groups) != 1 || got.Groups[0].Group != name {
		t.Fatalf("decoded %+v (%v), want the name back", got, err)
	}
	buf.Reset()
	s = NewLagStream(&buf, CSV, lag.LagReport{}, LagStreamOptions{})
	if err := s.Group(lag.GroupLag{Group: name}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `\u202e`) {
		t.Fatalf("CSV to a file went through the JSON escaper:\n%s", buf.String())
	}
}
