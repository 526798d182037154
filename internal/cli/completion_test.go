package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/testkit"
)

// complete runs the shell's hidden completion request and returns the
// offered words and the directive line.
func complete(t *testing.T, args ...string) (words []string, directive string) {
	t.Helper()
	r := offsetctl(t, nil, append([]string{"__complete"}, args...)...)
	if r.code != 0 {
		t.Fatalf("__complete %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		w, _, _ := strings.Cut(l, "\t")
		words = append(words, w)
	}
	return words, lines[len(lines)-1]
}

// Completion offers the cluster's group and topic names where a command
// takes them, filtered by the typed prefix and without the groups already
// on the line; enumerated flags offer their fixed values.
func TestCompletion(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(2, nil)
	g1, g2 := testkit.Name(t, "ga"), testkit.Name(t, "gb")
	c.Commit(g1, topic, map[int32]int64{0: 0})
	c.Commit(g2, topic, map[int32]int64{1: 0})
	// An explicit --timeout replaces the 3 s completion cap: a real broker
	// on a loaded machine may need longer.
	b := c.BrokerList()

	words, dir := complete(t, "--brokers", b, "--timeout", "30s", "lag", "")
	if !slices.Contains(words, g1) || !slices.Contains(words, g2) || dir != ":4" {
		t.Errorf("lag <TAB> = %v %s, want both groups and no file completion (:4)", words, dir)
	}
	words, _ = complete(t, "--brokers", b, "--timeout", "30s", "reset", g1, g2[:len("gb-")])
	if slices.Contains(words, g1) || !slices.Contains(words, g2) {
		t.Errorf("reset %s gb-<TAB> = %v, want %s only among ours", g1, words, g2)
	}
	for _, w := range words {
		if !strings.HasPrefix(w, "gb-") {
			t.Errorf("reset gb-<TAB> offered %q", w)
		}
	}
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "replay", topic[:len(topic)-3]); !slices.Equal(words, []string{topic}) {
		t.Errorf("replay <prefix><TAB> = %v, want [%s]", words, topic)
	}
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "replay", topic, ""); len(words) != 0 {
		t.Errorf("replay TOPIC <TAB> = %v, want nothing (one topic only)", words)
	}
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "lag", g1, "--topic", topic[:len(topic)-3]); !slices.Equal(words, []string{topic}) {
		t.Errorf("lag --topic <prefix><TAB> = %v, want [%s]", words, topic)
	}
	// delete-offsets takes several groups (issue 13): the next one is
	// offered, not the one already on the line.
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "delete-offsets", g1, ""); !slices.Contains(words, g2) || slices.Contains(words, g1) {
		t.Errorf("delete-offsets GROUP <TAB> = %v, want %s and not %s", words, g2, g1)
	}
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "reset", g1, "--to", "group:"+g2[:len("gb-")]); !slices.Contains(words, "group:"+g2) || slices.Contains(words, "group:"+g1) {
		t.Errorf("reset --to group:gb-<TAB> = %v, want group:%s", words, g2)
	}
	// A topic named like a group on the line is still offered for --topic.
	same := c.Topic(1, nil)
	c.Commit(same, same, map[int32]int64{0: 0})
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "lag", same, "--topic", same); !slices.Equal(words, []string{same}) {
		t.Errorf("lag %s --topic %s<TAB> = %v, want the topic of the same name", same, same, words)
	}
	// Comma lists complete their last item.
	// (A shared real broker holds other runs' groups: the prefix is g2's
	// name but for its last three random hex digits.)
	if words, _ = complete(t, "--brokers", b, "--timeout", "30s", "replay", topic, "--verify-groups", g1+","+g2[:len(g2)-3]); !slices.Equal(words, []string{g1 + "," + g2}) {
		t.Errorf("--verify-groups %s,%s<TAB> = %v", g1, g2[:len(g2)-3], words)
	}
	if words, _ = complete(t, "groups", "--state", "Empty,St"); !slices.Equal(words, []string{"Empty,Stable"}) {
		t.Errorf("groups --state Empty,St<TAB> = %v", words)
	}
	// A value ending in ':' wants more: no space after it (directive 2|4).
	if words, dir = complete(t, "replay", "t", "--from", "ti"); !slices.Equal(words, []string{"time:"}) || dir != ":6" {
		t.Errorf("replay --from ti<TAB> = %v %s, want time: with :6", words, dir)
	}
	if words, _ = complete(t, "lag", "g", "--isolation", ""); !slices.Equal(words, []string{"uncommitted", "committed"}) {
		t.Errorf("lag --isolation <TAB> = %v", words)
	}
	if words, dir = complete(t, "reset", "g", "--to", "ea"); !slices.Equal(words, []string{"earliest"}) || dir != ":4" {
		t.Errorf("reset --to ea<TAB> = %v", words)
	}
	if words, _ = complete(t, "lag", "-o", ""); !slices.Equal(words, []string{"table", "json", "csv"}) {
		t.Errorf("-o <TAB> = %v", words)
	}
	if words, _ = complete(t, "replay", "t", "--format", ""); !slices.Equal(words, []string{"jsonl", "raw", "none"}) {
		t.Errorf("replay --format <TAB> = %v", words)
	}
}

// An unreachable cluster gives no names (and no error text in the
// completions), within the completion timeout rather than --timeout's 30s.
func TestCompletionUnreachable(t *testing.T) {
	if testkit.Real() {
		t.Skip("needs no broker")
	}
	words, dir := complete(t, "--brokers", closedPort(t), "lag", "")
	if len(words) != 0 || dir != ":4" {
		t.Errorf("unreachable: %v %s, want nothing and :4", words, dir)
	}
}
