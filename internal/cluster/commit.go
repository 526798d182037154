package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

func commitOffsets(ctx context.Context, adm *Admin, group, topic string, offsets map[int32]int64) error {
	os := make(kadm.Offsets)
	for p, o := range offsets {
		os.AddOffset(topic, p, o, -1)
	}
	if err := adm.CommitAllOffsets(ctx, group, os); err != nil {
		return fmt.Errorf("committing offsets for group %s: %w", safetext.Arg(group), err)
	}
	return nil
}
