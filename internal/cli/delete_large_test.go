package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/testkit"
)

// TestDeleteGroupAnySize (issue 9): delete-group of a group with 10,000
// partitions and a 112-character name, together with four small groups
// (one of 100 partitions). Apache Kafka 4.4 writes the tombstones of one
// DeleteGroups request as one batch and refuses it above 1 MiB with
// UNKNOWN_SERVER_ERROR for every group of the request; on kfake that
// refusal is staged the same way. Every group is deleted, the small ones
// are not failed by the big one, the backup (written first) restores the
// big group, and delete-offsets of all 10,000 partitions works too.
// On Apache Kafka it runs as TestResetTxnKillNine/delete-group, on that
// test's topics of the same shape: creating and deleting 10,000
// partitions again cost a single test broker 20 s to a minute.
func TestDeleteGroupAnySize(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 partitions")
	}
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("on Apache Kafka this runs as TestResetTxnKillNine/delete-group, on its 10,000 partitions")
	}
	deleteGroupAnySize(t, c, newBigTopics(t, c, 10, 1000))
}

// deleteGroupAnySize is TestDeleteGroupAnySize on bg, 10 topics of 1,000
// partitions each with names over 120 characters.
func deleteGroupAnySize(t *testing.T, c *testkit.Cluster, bg bigGroup) {
	if len(bg.topics) != 10 || bg.parts != 1000 {
		t.Fatalf("%d topics of %d partitions, want 10 of 1000", len(bg.topics), bg.parts)
	}
	big := strings.Repeat("big-group-", 10) + testkit.Name(t, "g")[:12]
	if len(big) != 112 {
		t.Fatalf("group name of %d characters", len(big))
	}
	bg.commitOld(t, c, big)
	small := []string{testkit.Name(t, "s100"), testkit.Name(t, "s1"), testkit.Name(t, "s2"), testkit.Name(t, "s3")}
	hundred := map[int32]int64{}
	for p := int32(0); p < 100; p++ {
		hundred[p] = 1
	}
	c.Commit(small[0], bg.topics[0], hundred)
	for i, g := range small[1:] {
		c.Commit(g, bg.topics[1], map[int32]int64{int32(i): 1})
	}
	var mu sync.Mutex
	var requests [][]string
	bigOffsetDeletes := 0
	if c.Fake != nil {
		c.Fake.ControlKey(int16(kmsg.OffsetDelete), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			if req.(*kmsg.OffsetDeleteRequest).Group == big {
				mu.Lock()
				bigOffsetDeletes++
				mu.Unlock()
			}
			return nil, nil, false
		})
		c.Fake.ControlKey(int16(kmsg.DeleteGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.Fake.KeepControl()
			r := req.(*kmsg.DeleteGroupsRequest)
			mu.Lock()
			defer mu.Unlock()
			requests = append(requests, r.Groups)
			// Apache's refusal: the big group's offset tombstones, or
			// anything sharing the request with them, exceed 1 MiB.
			if !slices.Contains(r.Groups, big) || bigOffsetDeletes > 0 && len(r.Groups) == 1 {
				return nil, nil, false
			}
			resp := r.ResponseKind().(*kmsg.DeleteGroupsResponse)
			for _, g := range r.Groups {
				rg := kmsg.NewDeleteGroupsResponseGroup()
				rg.Group, rg.ErrorCode = g, kerr.UnknownServerError.Code
				resp.Groups = append(resp.Groups, rg)
			}
			return resp, nil, true
		})
	}
	backup := filepath.Join(t.TempDir(), "b.csv")
	r := mustRun(t, c, 0, append([]string{"delete-group", big, "--execute", "--backup", backup, "-o", "json"}, small...)...)
	var out struct {
		Groups []admin.DeleteGroupRow `json:"groups"`
	}
	decodeJSON(t, r, &out)
	rows := out.Groups
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		if row.Status != "deleted" || row.Error != "" {
			t.Fatalf("group %s: %s %s", row.Group, row.Status, row.Error)
		}
		if got := c.Committed(row.Group); len(got) != 0 {
			t.Fatalf("group %s still has offsets on %d topics", row.Group, len(got))
		}
	}
	if c.Fake != nil {
		for _, req := range requests {
			if slices.Contains(req, big) && len(req) > 1 {
				t.Fatalf("the big group shared a DeleteGroups request: %v", req)
			}
		}
		if bigOffsetDeletes < 2 {
			t.Fatalf("%d OffsetDeletes for the big group, want several", bigOffsetDeletes)
		}
	}
	mustRun(t, c, 0, "reset", big, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(t.TempDir(), "r.csv"))
	if st := bg.state(t, c, big, -1); st != "old" {
		t.Fatalf("the big group after restoring the backup: %s", st)
	}
	mustRun(t, c, 0, append([]string{"delete-offsets", big, "--execute", "--backup", filepath.Join(t.TempDir(), "d.csv")}, bg.scope()...)...)
	if got := c.Committed(big); len(got) != 0 {
		t.Fatalf("after delete-offsets of every partition: offsets on %d topics", len(got))
	}
	t.Log(fmt.Sprintf("DeleteGroups requests: %d", len(requests)))
}

// TestDeleteGroupLargeRefusedAfterItsOffsets: a group too large for one
// DeleteGroups has its offsets deleted in batches first, then the group;
// when that last DeleteGroups is refused (a consumer joined in between:
// NON_EMPTY_GROUP), every offset is already gone. The row, the exit code
// and the audit entry say the group was partly changed, never "failed"
// (which promises nothing changed), and the backup line restores it.
// When it answers GROUP_ID_NOT_FOUND (a coordinator removed the Empty
// group once its offsets were gone), the group is deleted, as asked.
func TestDeleteGroupLargeRefusedAfterItsOffsets(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 partitions")
	}
	c := testkit.New(t)
	if c.Fake == nil {
		t.Skip("the refusal is staged with kfake's request control")
	}
	bg := newBigTopics(t, c, 10, 1000)
	var mu sync.Mutex
	answer := map[string]int16{} // per group, DeleteGroups' error code
	refused := 0
	c.Fake.ControlKey(int16(kmsg.DeleteGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.Fake.KeepControl()
		r := req.(*kmsg.DeleteGroupsRequest)
		mu.Lock()
		defer mu.Unlock()
		code, ok := answer[r.Groups[0]]
		if len(r.Groups) != 1 || !ok {
			return nil, nil, false
		}
		refused++
		resp := r.ResponseKind().(*kmsg.DeleteGroupsResponse)
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group, rg.ErrorCode = r.Groups[0], code
		resp.Groups = append(resp.Groups, rg)
		return resp, nil, true
	})
	for _, tc := range []struct {
		name    string
		code    int16
		exit    int
		status  string
		outcome string
	}{
		{"non-empty", kerr.NonEmptyGroup.Code, 1, admin.PartlyDeleted, audit.Partly},
		{"gone", kerr.GroupIDNotFound.Code, 0, "deleted", audit.Applied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			big := strings.Repeat("big-group-", 10) + testkit.Name(t, "g")[:12]
			bg.commitOld(t, c, big)
			mu.Lock()
			answer[big], refused = tc.code, 0
			mu.Unlock()
			backup := filepath.Join(t.TempDir(), "b.csv")
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			r := mustRun(t, c, tc.exit, "--audit-log", log, "delete-group", big, "--execute", "--backup", backup, "-o", "json")
			var out struct {
				Groups []admin.DeleteGroupRow `json:"groups"`
			}
			decodeJSON(t, r, &out)
			if len(out.Groups) != 1 || out.Groups[0].Status != tc.status {
				t.Fatalf("rows %+v, want the big group %q", out.Groups, tc.status)
			}
			if tc.status == admin.PartlyDeleted && !strings.Contains(out.Groups[0].Error, "its 10000 offsets were deleted") {
				t.Fatalf("error %q, want it to say its 10000 offsets were deleted", out.Groups[0].Error)
			}
			if refused != 1 {
				t.Fatalf("%d DeleteGroups for the big group, want 1", refused)
			}
			if got := c.Committed(big); len(got) != 0 {
				t.Fatalf("the big group still has offsets on %d topics", len(got))
			}
			var doc struct {
				Entries []audit.Entry `json:"entries"`
			}
			if err := json.Unmarshal([]byte(mustRun(t, c, 0, "--audit-log", log, "history", "-o", "json").stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Entries) != 1 || doc.Entries[0].Outcome != tc.outcome {
				t.Fatalf("audit entries %+v, want one %q", doc.Entries, tc.outcome)
			}
			if !strings.Contains(r.stderr, "reset "+big+" --to "+shellQuote("file:"+backup)+" --execute") && !strings.Contains(r.stderr, "reset --to "+shellQuote("file:"+backup)+" --execute") {
				t.Fatalf("stderr names no restore of %s:\n%s", backup, r.stderr)
			}
			mustRun(t, c, 0, "reset", big, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(t.TempDir(), "r.csv"))
			if st := bg.state(t, c, big, -1); st != "old" {
				t.Fatalf("the big group after restoring the backup: %s", st)
			}
		})
	}
}
