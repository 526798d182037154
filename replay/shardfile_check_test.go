package replay

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// TestShardDigestConsistency: the reader refuses a file whose fields
// contradict each other (QA finding 6): a digest that is not the one its
// partitions give, impossible record counts, a malformed hash named as such.
func TestShardDigestConsistency(t *testing.T) {
	files, _, _ := shardFixture(3)
	sd := files[1].ShardDigest                           // partitions 1,4,7,10; partition 1: offsets 10..13, 3 records
	sd.PayloadDigest = combineParts(sd.Partitions, true) // as a --payload-digest run writes it
	data, err := json.Marshal(sd)
	if err != nil {
		t.Fatal(err)
	}
	zeros := strings.Repeat("0", 64)
	p1 := `"partition":1,"from":10,"to":13,"records":3,"hash":"`
	for _, tc := range []struct {
		name, from, to, err string
	}{
		{"own digest edited", `"digest":"` + sd.Digest, `"digest":"` + zeros, "digest 000000000000… is not the digest of its partitions"},
		{"partition hash edited", p1 + sd.Partitions[0].Hash, p1 + zeros, "is not the digest of its partitions"},
		{"payload digest edited", `"payload_digest":"` + sd.PayloadDigest, `"payload_digest":"` + zeros, "payload_digest 000000000000… is not the payload digest"},
		{"payload hash edited", `"payload_hash":"` + sd.Partitions[0].PayloadHash, `"payload_hash":"` + zeros, "is not the payload digest of its partitions"},
		{"records over the range (from)", `"from":10,"to":13,"records":3`, `"from":12,"to":13,"records":3`, "partition 1: 3 records cannot fit in range 12..13 (1 offsets)"},
		{"records over the range (to)", `"from":10,"to":13,"records":3`, `"from":10,"to":10,"records":3`, "partition 1: 3 records cannot fit in range 10..10 (0 offsets)"},
		{"negative records", `"to":13,"records":3`, `"to":13,"records":-3`, "partition 1: range 10..13 with -3 records"},
		{"negative from", `"from":10,"to":13`, `"from":-1,"to":13`, "partition 1: range -1..13"},
		{"from after to", `"from":10,"to":13`, `"from":14,"to":13`, "partition 1: range 14..13"},
		{"hash not hex", p1 + sd.Partitions[0].Hash, p1 + strings.Repeat("z", 64), "partition 1: hash is not a 64-hex-digit SHA-256"},
		{"hash too short", p1 + sd.Partitions[0].Hash, p1 + "00", "partition 1: hash is not a 64-hex-digit SHA-256"},
		{"payload hash malformed", `"payload_hash":"` + sd.Partitions[0].PayloadHash, `"payload_hash":"zz`, "partition 1: payload_hash is not a 64-hex-digit SHA-256"},
		{"records without hash", p1 + sd.Partitions[0].Hash + `"`, `"partition":1,"from":10,"to":13,"records":3,"hash":""`, "partition 1: 3 records but no hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(string(data), tc.from, tc.to, 1)
			if bad == string(data) {
				t.Fatalf("%q not in the file", tc.from)
			}
			_, err := ReadShardDigest(strings.NewReader(bad))
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line holding %q", err, tc.err)
			}
			if strings.Contains(err.Error(), "does not match its") {
				t.Fatalf("merge has no records to match: %v", err)
			}
		})
	}
	// The untouched file still reads.
	if _, err := ReadShardDigest(strings.NewReader(string(data))); err != nil {
		t.Fatalf("untouched file refused: %v", err)
	}
}

// TestMergeRefusesEditedFile: digest merge refuses a file whose own digest
// was edited, exit 2, one line naming the file, and prints nothing.
func TestMergeRefusesEditedFile(t *testing.T) {
	files, _, _ := shardFixture(3)
	dir := t.TempDir()
	var paths []string
	for i, f := range files {
		sd := f.ShardDigest
		if i == 2 {
			sd.Digest = strings.Repeat("0", 64)
		}
		p := filepath.Join(dir, f.Name)
		if err := WriteShardDigest(p, sd); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	m, err := MergeDigestFiles(paths)
	if exitcode.Code(err) != 2 || m != nil || !strings.Contains(err.Error(), paths[2]+": not a valid shard digest file: digest") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %+v, %v (exit %d)", m, err, exitcode.Code(err))
	}
	if m, err := MergeDigestFiles(paths[:2]); exitcode.Code(err) != 2 || !strings.Contains(err.Error(), "missing shard: ") {
		t.Fatalf("the two good files: %+v, %v", m, err)
	}
}

// TestMergeSameFileTwice: one file named twice, by one path or by two, is
// said to be given twice, not to be two files of one shard (QA finding:
// "s-1.json and s-1.json are both shard 1/4").
func TestMergeSameFileTwice(t *testing.T) {
	files, _, _ := shardFixture(3)
	dir := t.TempDir()
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := WriteShardDigest(p, f.ShardDigest); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	other := dir + "/./" + filepath.Base(paths[1]) // another path to it
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{paths[0], paths[1], paths[1], paths[2]}, paths[1] + " was given twice: name each shard digest file once"},
		{[]string{paths[0], paths[1], other, paths[2]}, paths[1] + " and " + other + " are the same file: name each shard digest file once"},
	} {
		m, err := MergeDigestFiles(c.paths)
		if exitcode.Code(err) != 2 || m != nil || err.Error() != c.want {
			t.Errorf("%v: got %+v, %v (exit %d), want %q", c.paths, m, err, exitcode.Code(err), c.want)
		}
	}
}
