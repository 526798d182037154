package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/internal/testkit"
	"github.com/offsetctl/offsetctl/replay"
)

// TestReplayShardDigestOutUnwritable: a --digest-out that cannot be
// created (no such directory, a file as its directory) is refused with
// exit 2 and one line before anything is read: no record reaches stdout
// (JSONL, the default) and no file is left; the same path in a directory
// that exists then works. Runs on kfake, and on Apache Kafka under make
// test-kafka (KAFKA_BROKERS).
func TestReplayShardDigestOutUnwritable(t *testing.T) {
	c := testkit.New(t)
	topic := c.Topic(3, nil)
	c.Produce(topic, map[int32]int{0: 4, 1: 2, 2: 3}, time.Now().Add(-time.Hour).Truncate(time.Millisecond))

	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexistent", "x.json")
	badInput(t, c, "cannot be created: no such file or directory", "replay", topic, "--shard", "1/3", "--digest-out", missing)
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	badInput(t, c, "cannot be created: not a directory", "replay", topic, "--digest-out", filepath.Join(plain, "x.json"))
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Fatalf("the refused run made %s: %v", filepath.Dir(missing), err)
	}

	ok := filepath.Join(dir, "x.json")
	res, lines, _ := replayJSON(t, c, 0, topic, "--digest-out", ok)
	if res.Records != 9 || len(lines) != 9 || res.DigestFile != ok {
		t.Fatalf("writable path: %d records, %d lines, digest file %q; want 9", res.Records, len(lines), res.DigestFile)
	}
	var m replay.MergeResult
	decodeJSON(t, mustRun(t, c, 0, "digest", "merge", ok, "-o", "json"), &m)
	if m.Digest != res.Digest || m.Records != 9 {
		t.Fatalf("merge of the written file: digest %s, %d records; the run: %s", m.Digest, m.Records, res.Digest)
	}
}
