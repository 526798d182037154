package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// jsonRaw fails if s, JSON on stdout, holds DEL, a C1 control or a format
// character (bidi overrides, isolates, marks) raw: a terminal or pager
// showing it would act on it.
func jsonRaw(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		if r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) {
			t.Fatalf("%s holds %U raw at byte %d:\n%q", what, r, i, s)
		}
	}
}

// TestJSONEscapesFormatCharacters: a group created on the cluster with a
// bidi override, isolates, marks and a C1 control in its name is written
// by every JSON output (lag, groups, reset, snapshot, history, the lines
// of lag --watch -o json, with --by too, and of replay's jsonl) with those characters as
// \u escapes, not raw (to a pipe: this is no terminal), and each decodes
// to the exact name.
func TestJSONEscapesFormatCharacters(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	c.Produce(topic, map[int32]int{0: 10, 1: 10}, time.Time{})
	g := testkit.Name(t, "g") + "-rtl\u202egnillib-iso\u2066x\u2069-lrm\u200e\u200f-alm\u061c-c1\u0085"
	c.Commit(g, topic, map[int32]int64{0: 4, 1: 6})
	escapes := []string{`\u202e`, `\u2066`, `\u2069`, `\u200e`, `\u200f`, `\u061c`, `\u0085`}
	check := func(what, out string) {
		t.Helper()
		jsonRaw(t, what, out)
		for _, e := range escapes {
			if !strings.Contains(out, e) {
				t.Fatalf("%s lacks %s:\n%s", what, e, out)
			}
		}
	}

	r := mustRun(t, c, 0, "lag", "-o", "json", "--", g)
	check("lag -o json", r.stdout)
	if rep := decodeLag(t, r); len(rep.Groups) != 1 || rep.Groups[0].Group != g {
		t.Fatalf("lag -o json decodes to %+v, want %q", rep.Groups, g)
	}

	r = mustRun(t, c, 0, "groups", "-o", "json", "-r", regexp.QuoteMeta(g))
	check("groups -o json", r.stdout)
	var gs struct {
		Groups []lag.GroupSummary `json:"groups"`
	}
	if decodeJSON(t, r, &gs); len(gs.Groups) != 1 || gs.Groups[0].Group != g {
		t.Fatalf("groups -o json decodes to %+v, want %q", gs.Groups, g)
	}

	dir := t.TempDir()
	r = mustRun(t, c, 0, "reset", "-o", "json", "--group="+g, "--topic", topic, "--to", "earliest", "--execute", "--backup", filepath.Join(dir, "b.csv"))
	check("reset -o json", r.stdout)
	var plan struct {
		Group string `json:"group"`
	}
	if decodeJSON(t, r, &plan); plan.Group != g {
		t.Fatalf("reset -o json names %q, want %q", plan.Group, g)
	}

	r = mustRun(t, c, 0, "snapshot", "-o", "json", "--out", filepath.Join(dir, "s.csv"), "--", g)
	check("snapshot -o json", r.stdout)

	r = mustRun(t, nil, 0, "history", "-o", "json")
	check("history -o json", r.stdout)
	var h struct {
		Entries []audit.Entry `json:"entries"`
	}
	if decodeJSON(t, r, &h); len(h.Entries) != 1 || len(h.Entries[0].Groups) != 1 || h.Entries[0].Groups[0] != g {
		t.Fatalf("history -o json decodes to %+v, want one entry of %q", h.Entries, g)
	}

	// NDJSON: a line per round, each escaped and decoding to the name.
	r = watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 2 },
		"lag", "-o", "json", "--watch", "200ms", "--", g)
	check("lag --watch -o json", r.stdout)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var rep lag.LagReport
		if err := json.Unmarshal([]byte(line), &rep); err != nil || len(rep.Groups) != 1 || rep.Groups[0].Group != g {
			t.Fatalf("watch line %s: %v, groups %+v", line, err, rep.Groups)
		}
	}

	// The roll-up's lines (WriteJSONLine) too.
	r = watchUntil(t, c, func(out string) bool { return strings.Count(out, "\n") >= 1 },
		"lag", "-o", "json", "--watch", "200ms", "--by", "group", "--", g)
	check("lag --watch --by group -o json", r.stdout)
	var byGroup lag.GroupsReport
	if err := json.Unmarshal([]byte(strings.Split(r.stdout, "\n")[0]), &byGroup); err != nil || len(byGroup.Groups) != 1 || byGroup.Groups[0].Group != g {
		t.Fatalf("watch --by group line: %v, groups %+v", err, byGroup.Groups)
	}

	// replay's jsonl: a record whose key is the name.
	ktopic := c.Topic(1, nil)
	c.ProduceRecords(&kgo.Record{Topic: ktopic, Partition: 0, Key: []byte(g), Value: []byte("v")})
	r = mustRun(t, c, 0, "replay", ktopic, "--format", "jsonl", "-q")
	check("replay --format jsonl", r.stdout)
	l, err := replay.ParseLine([]byte(strings.TrimSpace(r.stdout)))
	if err != nil || string(l.Key) != g {
		t.Fatalf("replay line decodes to key %q, %v; want %q", l.Key, err, g)
	}
}
