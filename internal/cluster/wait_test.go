package cluster

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitPartitions(t *testing.T) {
	emb, err := StartEmbedded(EmbeddedOptions{Brokers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	adm, err := emb.Config().NewAdmin()
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "w"); err != nil {
		t.Fatal(err)
	}
	if err := adm.WaitPartitions(ctx, "w", 2); err != nil {
		t.Fatalf("2 partitions: %v", err)
	}
	// A partition count the topic never reaches, and a topic that does not
	// exist, wait until ctx ends and say so.
	for _, tc := range []struct {
		topic string
		parts int
	}{{"w", 3}, {"missing", 1}} {
		short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
		err := adm.WaitPartitions(short, tc.topic, tc.parts)
		stop()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitPartitions(%s, %d) = %v, want a deadline error", tc.topic, tc.parts, err)
		}
	}
}
