package replay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/offsetctl/offsetctl/admin"
)

// TestRefusedCopyIsNotReplayed pins the invariant behind every resume
// point: once a copy has failed, the copier refuses the next record, and
// that record must count as neither replayed nor copied. The partition's
// position stays on it, so a partition whose earlier copies were all
// acknowledged resumes at that record, not after it. Here the failure
// comes before any record, so every partition resumes where it started.
func TestRefusedCopyIsNotReplayed(t *testing.T) {
	_, cfg := fakeTopic(t, 3, 20)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm, err := cfg.NewAdmin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if resp, err := adm.CreateTopic(ctx, 3, 1, nil, "dst"); err != nil || resp.Err != nil {
		t.Fatalf("creating dst: %v %v", err, resp.Err)
	}
	g, err := Gather(ctx, adm, "t", admin.ReadCommitted, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(g, PlanRequest{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	po := ProduceOptions{Topic: "dst"}
	b, err := newBackfiller(ctx, cfg, "t", plan, po)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	// A copy failed (as when the first produce of a partition is
	// answered with an error) before the consumer handed over a record.
	b.fail(errors.New("injected produce failure"), "topic t partition 1 offset 0")

	res, cerr := consume(ctx, cfg, plan, Options{Topic: "t", Format: None, Produce: &po}, b)
	if cerr == nil || !strings.Contains(cerr.Error(), "injected produce failure") {
		t.Fatalf("consume error = %v, want the copy error", cerr)
	}
	for _, pr := range res.Partitions {
		if pr.To != 0 || pr.Records != 0 {
			t.Fatalf("partition %+v: a refused record was counted as replayed", pr)
		}
	}
	br, err := b.finish(ctx, res, cerr)
	if err == nil {
		t.Fatal("finish returned no error for a failed copy")
	}
	want := "acknowledged copies: partition 0 none, partition 1 none, partition 2 none; resume with --from 0=0,1=0,2=0"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "copying topic t partition 1 offset 0 to dst: injected produce failure") {
		t.Fatalf("finish error %q, want it to contain %q", err, want)
	}
	if br.Complete || br.Produced != 0 || br.Resume != "0=0,1=0,2=0" {
		t.Fatalf("backfill result %+v", br)
	}
	for _, bp := range br.Partitions {
		if bp.ResumeFrom != 0 || bp.AckedThrough != nil || bp.Copied != 0 {
			t.Fatalf("partition %+v, want resume from 0 with nothing acknowledged", bp)
		}
	}
}
