package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicIDs is the ids of topics from the client's metadata cache, asking
// the brokers only for topics cached longer than maxAge (kgo's
// MetadataMinAge, 5 s by default, when maxAge <= 0): the gathers before
// it (OffsetFetch, ListOffsets) have usually just filled it. A topic
// answered with an error is left out. The error is the request's (ids
// nil), or TOPIC_AUTHORIZATION_FAILED for a topic the principal may not
// describe (ids then hold the topics answered).
func (a *Admin) TopicIDs(ctx context.Context, topics []string, maxAge time.Duration) (map[string][16]byte, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := a.Kgo.RequestCachedMetadata(ctx, req, maxAge)
	if err != nil {
		return nil, err
	}
	ids := make(map[string][16]byte, len(resp.Topics))
	for _, t := range resp.Topics {
		terr := kerr.ErrorForCode(t.ErrorCode)
		switch {
		case errors.Is(terr, kerr.TopicAuthorizationFailed):
			err = terr
		case terr == nil && t.Topic != nil:
			ids[*t.Topic] = t.TopicID
		}
	}
	return ids, err
}
