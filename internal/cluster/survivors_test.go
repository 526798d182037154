package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Tests for the mutants make mutate-full found alive in cluster, each
// written as the bug the mutant stands for.

// TestNewAdminRequestTimeout: the admin client asks the broker to wait
// --timeout (CreateTopics' TimeoutMillis), 30 s when no timeout is set.
// The bugs: a timeout of 0 sent as 0 (the broker answers at once, before
// the topic is created everywhere), a set timeout replaced by 30 s, or the
// duration converted to milliseconds the wrong way.
func TestNewAdminRequestTimeout(t *testing.T) {
	emb, err := StartEmbedded(EmbeddedOptions{Brokers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	seen := make(chan int32, 8)
	emb.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		emb.KeepControl()
		seen <- req.(*kmsg.CreateTopicsRequest).TimeoutMillis
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, tc := range []struct {
		timeout time.Duration
		want    int32
	}{{0, 30000}, {-time.Second, 30000}, {5 * time.Second, 5000}, {1500 * time.Millisecond, 1500}} {
		cfg := emb.Config()
		cfg.Timeout = tc.timeout
		adm, err := cfg.NewAdmin()
		if err != nil {
			t.Fatal(err)
		}
		_, err = adm.CreateTopic(ctx, 1, 1, nil, "t"+string(rune('a'+i)))
		adm.Close()
		if err != nil {
			t.Fatalf("timeout %s: %v", tc.timeout, err)
		}
		if got := <-seen; got != tc.want {
			t.Errorf("timeout %s: CreateTopics asked the broker to wait %d ms, want %d", tc.timeout, got, tc.want)
		}
	}
}
