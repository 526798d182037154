package mirror

import (
	"context"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// Gather reads what Translate needs from the target cluster: the
// checkpoints of alias for groups, the groups' commits and the log offsets
// of the checkpointed topics.
func Gather(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, alias string, groups []string, maxAge time.Duration, now time.Time) (Input, error) {
	in := Input{Alias: alias, Groups: groups, MaxAge: maxAge, Now: now}
	want := map[string]bool{}
	for _, g := range groups {
		want[g] = true
	}
	cps, err := ReadCheckpoints(ctx, cfg, adm, CheckpointsTopic(alias), func(g string) bool { return want[g] })
	if err != nil {
		return in, err
	}
	in.Checkpoints = cps
	snap, err := lag.Gather(ctx, adm, lag.GatherRequest{Groups: groups, ExtraTopics: Topics(cps, groups)})
	if err != nil {
		return in, err
	}
	in.Target = snap
	return in, nil
}
