package cli

import (
	"context"
	"fmt"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// A backup or snapshot records the cluster whose offsets it holds (its
// admin.ClusterMarker record). A restore of it (reset --to file:F, undo)
// on another cluster is refused, as undo refuses an entry of another
// cluster (entry_cluster.go): two clusters with the same group and topic
// names are told apart by their ids only, and the file's offsets would
// move the wrong cluster's groups.

// clusterIDNow asks the cluster adm is connected to for its id
// (Metadata), within cfg's timeout.
func clusterIDNow(ctx context.Context, cfg cluster.Config, adm *cluster.Admin) (string, error) {
	mctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	m, err := adm.BrokerMetadata(mctx)
	return m.Cluster, err
}

// backupClusterID is the id a backup written now records: the connected
// cluster's. A cluster that does not say it (Metadata fails, or it
// reports none) gets a backup without the marker, as before the marker
// existed, with a warning: the change itself is not stopped for it.
func (a *app) backupClusterID(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, what string) string {
	id, err := clusterIDNow(ctx, cfg, adm)
	switch {
	case err != nil:
		a.warnf("the %s records no cluster id: the cluster did not say its id (%v), so a restore of it on another cluster cannot be refused", what, safetext.Text(err.Error()))
	case id == "":
		a.warnf("the %s records no cluster id: the cluster reports none, so a restore of it on another cluster cannot be refused", what)
	}
	return id
}

// checkOtherClusterFlag checks reset's --other-cluster against the plan
// file before anything is sent: it names the cluster a plan file records,
// so it goes with --to file:PLAN only, with a file that records one, and
// must be that very id (typed, not assumed: a flag left in a script never
// lets another file through to the wrong cluster).
func checkOtherClusterFlag(other string, target admin.Target, pf *admin.PlanFile) error {
	switch {
	case other == "":
		return nil
	case target.Kind != admin.ToFile || pf == nil:
		return exitcode.Usagef("--other-cluster goes with --to file:PLAN: it names the cluster a plan file was written on (its offsetctl:cluster line)")
	case pf.ClusterID == "":
		return exitcode.Usagef("--other-cluster: plan %s records no cluster id: leave the flag out", safetext.Arg(target.Path))
	case other != pf.ClusterID:
		return exitcode.Usagef("--other-cluster %s: plan %s was written on cluster %s, not that one", safetext.Arg(other), safetext.Arg(target.Path), safetext.Arg(pf.ClusterID))
	}
	return nil
}

// checkPlanCluster checks, before anything is read or changed for it,
// that plan file path (pf) records the cluster adm is connected to. A
// file of another cluster is bad input (exit 2: the command was pointed
// at the wrong cluster, or at the wrong file), refused in one line that
// names both ids, dry run or not. other is --other-cluster (checked
// against the file by checkOtherClusterFlag): the file's id, typed, for
// that cluster rebuilt under a new id; the reset then warns, and its
// entry records it (other_cluster_id). byUndo says the reset restores an
// undo's backup: undo checked its entry's cluster and passed its own
// --other-cluster on, and has warned already. A file that records no
// cluster (Apache's exports, hand-written plans, older backups) is not
// checked.
func (a *app) checkPlanCluster(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, path string, pf *admin.PlanFile, other string, byUndo bool) error {
	if pf == nil || pf.ClusterID == "" {
		return nil
	}
	here, err := clusterIDNow(ctx, cfg, adm)
	if err != nil {
		return fmt.Errorf("cannot tell whether plan %s was written on this cluster (it records cluster %s): %w", safetext.Arg(path), safetext.Arg(pf.ClusterID), cfg.Unreachable(err))
	}
	hereWord := safetext.Arg(here)
	if here == "" {
		hereWord = "it reports no cluster id"
	}
	switch {
	case here == pf.ClusterID && other != "" && !byUndo:
		return exitcode.Usagef("--other-cluster: plan %s was written on the cluster connected now (%s): leave the flag out", safetext.Arg(path), hereWord)
	case here == pf.ClusterID:
		return nil
	case other == pf.ClusterID:
		if !byUndo {
			a.warnf("plan %s was written on cluster %s; --other-cluster: restoring it on the cluster connected now (%s)", safetext.Arg(path), safetext.Arg(pf.ClusterID), hereWord)
		}
		a.otherCluster = pf.ClusterID // on the reset's (or the undo's) record
		return nil
	}
	return exitcode.Usagef("plan %s was written on cluster %s, not on the cluster connected now (%s): its offsets are never restored on another cluster; point --brokers or --profile at cluster %s and run the command again (only if the cluster connected now is that cluster rebuilt under a new id: add --other-cluster %s)",
		safetext.Arg(path), safetext.Arg(pf.ClusterID), hereWord, safetext.Arg(pf.ClusterID), shellQuote(pf.ClusterID))
}
