package replay

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// goldenFile holds digests computed by replay/testdata/digest_vectors.py,
// an implementation of the format comment in digest.go written in another
// language, so these tests compare against known values and not against a
// second run of the same Go code.
type goldenFile struct {
	Version int            `json:"version"`
	Vectors []goldenVector `json:"vectors"`
}

type goldenVector struct {
	Name       string  `json:"name"`
	Partitions []int32 `json:"partitions"`
	Records    []struct {
		Partition int32   `json:"partition"`
		Offset    int64   `json:"offset"`
		Timestamp int64   `json:"timestamp"`
		Key       *string `json:"key"`
		Value     *string `json:"value"`
		Headers   []struct {
			Key   string  `json:"key"`
			Value *string `json:"value"`
		} `json:"headers"`
	} `json:"records"`
	Digest        string `json:"digest"`
	PayloadDigest string `json:"payload_digest"`
}

func loadGolden(t *testing.T) goldenFile {
	t.Helper()
	b, err := os.ReadFile("testdata/digest_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Version != DigestVersion || len(g.Vectors) < 20 {
		t.Fatalf("vectors are version %d with %d cases; the code is version %d", g.Version, len(g.Vectors), DigestVersion)
	}
	return g
}

func hexOrNil(t *testing.T, s *string) []byte {
	t.Helper()
	if s == nil {
		return nil
	}
	b, err := hex.DecodeString(*s)
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		b = []byte{} // "" is an empty value, not a null one
	}
	return b
}

// digestVector runs a vector through the code path consume uses: one
// partHash per selected partition (empty ones included), records added in
// the order the broker returns them, combine over the partitions in the
// order consume sorts them to.
func digestVector(t *testing.T, v goldenVector) (audit, payload string) {
	t.Helper()
	hashes := map[int32]*partHash{}
	for _, p := range v.Partitions {
		hashes[p] = newPartHash(true)
	}
	for _, r := range v.Records {
		rec := &kgo.Record{Partition: r.Partition, Offset: r.Offset, Timestamp: time.UnixMilli(r.Timestamp),
			Key: hexOrNil(t, r.Key), Value: hexOrNil(t, r.Value)}
		for _, h := range r.Headers {
			rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: string(hexOrNil(t, &h.Key)), Value: hexOrNil(t, h.Value)})
		}
		hashes[r.Partition].add(rec)
	}
	order := append([]int32(nil), v.Partitions...)
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if order[j] < order[i] {
				order[i], order[j] = order[j], order[i]
			}
		}
	}
	return combine(order, hashes, false), combine(order, hashes, true)
}

func TestDigestGoldenVectors(t *testing.T) {
	for _, v := range loadGolden(t).Vectors {
		audit, payload := digestVector(t, v)
		if audit != v.Digest {
			t.Errorf("%s: audit digest %s, the reference implementation says %s", v.Name, audit, v.Digest)
		}
		if payload != v.PayloadDigest {
			t.Errorf("%s: payload digest %s, the reference implementation says %s", v.Name, payload, v.PayloadDigest)
		}
	}
}

// TestDigestEveryFieldCounts: each "field: X" vector changes one field of
// the base record. Every field changes the audit digest; the payload digest
// changes exactly for the fields it covers (not the partition's position
// within the frame, the offset or the source header).
func TestDigestEveryFieldCounts(t *testing.T) {
	byName := map[string]goldenVector{}
	for _, v := range loadGolden(t).Vectors {
		byName[v.Name] = v
	}
	base, ok := byName["field: base"]
	if !ok {
		t.Fatal("no base vector")
	}
	baseAudit, basePayload := digestVector(t, base)
	payloadBlind := map[string]bool{"offset": true, "source header added": true}
	fields := 0
	for name, v := range byName {
		field, ok := strings.CutPrefix(name, "field: ")
		if !ok || field == "base" || strings.HasPrefix(field, "key/value boundary") {
			continue
		}
		fields++
		audit, payload := digestVector(t, v)
		if audit == baseAudit {
			t.Errorf("changing the %s leaves the audit digest as it was", field)
		}
		if payloadBlind[field] != (payload == basePayload) {
			t.Errorf("changing the %s: payload digest %s, base %s (want equal: %v)", field, payload, basePayload, payloadBlind[field])
		}
	}
	if fields < 16 {
		t.Fatalf("only %d field vectors", fields)
	}
	a, _ := digestVector(t, byName["field: key/value boundary a"])
	b, _ := digestVector(t, byName["field: key/value boundary b"])
	if a == b {
		t.Error(`key "ab" value "c" hashes like key "a" value "bc": the lengths are not framed`)
	}
}

// TestDigestEmptyPartitionBeforeRecords is the bug a `continue` turned into
// `break` in combine stands for: an empty selected partition ahead of one
// with records must not end the digest there.
func TestDigestEmptyPartitionBeforeRecords(t *testing.T) {
	g := loadGolden(t)
	var withEmpty, oneRec goldenVector
	for _, v := range g.Vectors {
		switch v.Name {
		case "empty partitions first, between and last":
			withEmpty = v
		case "no partitions":
			oneRec = v
		}
	}
	audit, payload := digestVector(t, withEmpty)
	if audit == oneRec.Digest || payload == oneRec.PayloadDigest || audit != withEmpty.Digest {
		t.Fatalf("records after an empty partition were left out: %s", audit)
	}
	// Dropping partition 3's record (after empty partition 2) changes it.
	withEmpty.Records = withEmpty.Records[:2]
	if a, _ := digestVector(t, withEmpty); a == audit {
		t.Fatal("partition 3 does not count")
	}
}
