package lag

import (
	"context"
	"slices"
	"time"

	"github.com/offsetctl/offsetctl/internal/cluster"
)

// LagBatchGroups is how many groups StreamLag gathers at once. Memory
// grows with the rows of one batch, not of the report: lag --all-groups
// over 502 groups × 1,000 partitions held 723-853 MiB gathered whole. A
// batch of 100 such groups still peaked at 76 MiB: kadm's
// FetchManyOffsets alone keeps about 280 bytes a committed partition, and
// the collector lets the heap grow to twice what is live. Each batch costs
// one round of batched requests (DescribeGroups and OffsetFetch per
// coordinator, ListOffsets per leader), a few milliseconds. Sizing batches
// from the rows per group seen so far was tried and rejected: a run of
// small groups then sized a batch of 100 large ones.
const LagBatchGroups = 25

// LagBatch is one batch of a streamed lag report: its snapshot (for the
// scope check and the time-lag search) and its computed groups, in name
// order. Batches come in name order too.
type LagBatch struct {
	Snapshot *Snapshot
	Report   LagReport
}

// StreamOptions size and bound a StreamLag.
type StreamOptions struct {
	// BatchGroups is the groups per batch (LagBatchGroups when 0).
	BatchGroups int
	// Timeout, when set, bounds each batch (the first includes the
	// ListGroups): the time the caller spends writing a batch out does
	// not count against the next.
	Timeout time.Duration
}

// StreamLag lists the groups once, then gathers and computes the lag of a
// batch of groups at a time, sorted by name, and hands each batch to each
// (with the batch's context, for more requests about it) before gathering
// the next. With no group at all, each gets one empty batch (the topics in
// scope are still listed). An error from each stops the stream and is
// returned as it is; when a batch's time ran out, the error is the
// context's (context.DeadlineExceeded), as the requests' own errors then
// only echo it.
func StreamLag(ctx context.Context, adm *cluster.Admin, req GatherRequest, o LagOptions, so StreamOptions, each func(context.Context, LagBatch) error) error {
	size := so.BatchGroups
	if size <= 0 {
		size = LagBatchGroups
	}
	bctx, cancel := batchContext(ctx, so.Timeout)
	defer func() { cancel() }()
	listed, err := ListGroups(bctx, adm)
	if err != nil {
		return ctxErr(bctx, err)
	}
	groups := SelectGroups(listed, req)
	slices.Sort(groups)
	for i := 0; i == 0 || i < len(groups); i += size {
		if i > 0 {
			cancel()
			bctx, cancel = batchContext(ctx, so.Timeout)
		}
		br := req
		br.AllGroups = false
		br.Groups = groups[i:min(i+size, len(groups))]
		snap, err := gatherListed(bctx, adm, br, listed)
		if err != nil {
			return ctxErr(bctx, err)
		}
		if bctx.Err() != nil {
			// The batch's time ran out while its requests were in
			// flight: the groups that got "context deadline exceeded"
			// were not answered, which is the cluster not answering
			// within --timeout, not per-group failures to list.
			return bctx.Err()
		}
		if err := each(bctx, LagBatch{Snapshot: snap, Report: ComputeLagWith(snap, o)}); err != nil {
			return err
		}
	}
	return nil
}

func batchContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// ctxErr is the context's error when it ended, else err.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// GatherBatch gathers and computes the named groups as StreamLag does a
// batch (req's selection replaced by groups): the second read of a batch
// that lag --status's sampling source judges against the first.
func GatherBatch(ctx context.Context, adm *cluster.Admin, req GatherRequest, groups []string, o LagOptions) (LagBatch, error) {
	req.AllGroups, req.Match, req.Groups = false, nil, groups
	snap, err := Gather(ctx, adm, req)
	if err != nil {
		return LagBatch{}, ctxErr(ctx, err)
	}
	if ctx.Err() != nil {
		return LagBatch{}, ctx.Err() // as StreamLag: not answered in time
	}
	return LagBatch{Snapshot: snap, Report: ComputeLagWith(snap, o)}, nil
}
