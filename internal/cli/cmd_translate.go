package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/mirror"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/report"
)

type translateFlags struct {
	alias  string
	maxAge string
	// --offset-syncs: read mm2-offset-syncs.TARGET.internal on the
	// cluster of --offset-syncs-profile (MM2's default location is the
	// source cluster), else on the connected one.
	offsetSyncs  bool
	targetAlias  string
	syncsProfile string
}

func (a *app) translateCmd() *cobra.Command {
	var f translateFlags
	cmd := &cobra.Command{
		Use:   "translate GROUP... --source-alias ALIAS",
		Short: "Show MirrorMaker 2's translation of groups' offsets onto this (the target) cluster",
		Long: `translate reads MirrorMaker 2's ALIAS.checkpoints.internal topic on the
cluster it connects to (the target, B) and prints, per group and partition,
the group's committed offset on the source cluster ALIAS as of the newest
checkpoint, the offset MM2 translated it to on B, the group's commit on B,
B's log start and end, and what "reset GROUP --to translated:ALIAS" would
change. A partition of a mirrored topic on B without a checkpoint is named
(status no-checkpoint), never guessed. --max-age flags older checkpoints.
It changes nothing. Exit 1 when a group has no checkpoint or B could not
be read.`,
		Example: `  offsetctl translate orders-app --source-alias primary --profile dr
  offsetctl translate orders-app billing --source-alias primary --max-age 5m -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTranslate(cmd, args, f)
		},
	}
	cmd.Flags().StringVar(&f.alias, "source-alias", "", "MirrorMaker 2 alias of the source cluster (the prefix of its checkpoints topic)")
	cmd.Flags().StringVar(&f.maxAge, "max-age", "", "flag checkpoints older than this (90s, 5m, PT1H)")
	cmd.Flags().BoolVar(&f.offsetSyncs, "offset-syncs", false, "also read MM2's offset syncs: the sync each translation comes from and the records a failed-over consumer reads again")
	cmd.Flags().StringVar(&f.targetAlias, "target-alias", "", "with --offset-syncs: MM2's alias of this (the target) cluster, naming mm2-offset-syncs.ALIAS.internal")
	cmd.Flags().StringVar(&f.syncsProfile, "offset-syncs-profile", "", "with --offset-syncs: profile of the cluster holding the offset-syncs topic (MM2 writes it to the source cluster by default); default: the connected cluster")
	return cmd
}

// parseTranslateArgs checks groups, alias and --max-age (exit 2 on bad input).
func parseTranslateArgs(args []string, alias, maxAge string) (time.Duration, error) {
	if len(args) == 0 {
		return 0, exitcode.Usagef("name at least one group")
	}
	if err := checkGroupArgs(args); err != nil {
		return 0, err
	}
	if alias == "" {
		return 0, exitcode.Usagef("--source-alias: name the MirrorMaker 2 source cluster alias")
	}
	if err := admin.CheckAlias(alias); err != nil {
		return 0, exitcode.Flag("--source-alias", err)
	}
	if maxAge == "" {
		return 0, nil
	}
	d, err := admin.ParseDuration(maxAge)
	if err == nil && d <= 0 {
		err = errors.New("must be positive")
	}
	if err != nil {
		return 0, exitcode.Flag("--max-age", err)
	}
	return d, nil
}

func (a *app) runTranslate(cmd *cobra.Command, args []string, f translateFlags) error {
	maxAge, err := parseTranslateArgs(args, f.alias, f.maxAge)
	if err != nil {
		return err
	}
	if err := f.checkSyncFlags(); err != nil {
		return err
	}
	groups := lag.Dedupe(args)
	// Both profiles are resolved before the cluster is asked anything: a
	// bad --offset-syncs-profile is exit 2 with nothing read (it followed
	// the checkpoints' read and its warnings).
	if _, err := a.clusterConfig(); err != nil {
		return err
	}
	syncs, err := a.syncsConfig(f.syncsProfile)
	if err != nil {
		return err
	}
	cfg, adm, err := a.admin(cmd.Context())
	if err != nil {
		return err
	}
	defer adm.Close()
	res, err := a.translate(cmd.Context(), cfg, adm, f.alias, groups, maxAge)
	if err != nil {
		return err
	}
	if f.offsetSyncs {
		if err := a.addOffsetSyncs(cmd.Context(), cfg, adm, syncs, f.targetAlias, &res); err != nil {
			return err
		}
	}
	werr := report.Translate(a.stdout, a.format, res)
	return withOutput(translateErrors(res, a.warnf), werr)
}

// translate gathers and computes a translation on the connected cluster.
func (a *app) translate(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, alias string, groups []string, maxAge time.Duration) (mirror.Result, error) {
	gctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	in, err := mirror.Gather(gctx, cfg, adm, alias, groups, maxAge, a.now())
	if errors.Is(err, mirror.ErrNoTopic) {
		return mirror.Result{}, fmt.Errorf("%s does not exist on this cluster: is it the MirrorMaker 2 target, with emit.checkpoints.enabled, and is %s the source alias?", mirror.CheckpointsTopic(alias), safetext.Arg(alias))
	}
	if err != nil {
		return mirror.Result{}, err
	}
	if in.Checkpoints.Skipped > 0 {
		a.warnf("%s: skipped %s that did not decode as checkpoints (first: %s)", in.Checkpoints.Topic, textlist.Count(in.Checkpoints.Skipped, "record"), safetext.Name(in.Checkpoints.FirstSkipErr))
	}
	return mirror.Translate(in), nil
}

// translateErrors warns of stale and missing checkpoints and fails (exit
// 1) for a group that could not be translated.
func translateErrors(res mirror.Result, warnf func(string, ...any)) error {
	var errs []string
	for _, g := range res.Groups {
		if g.Error != "" {
			errs = append(errs, "group "+safetext.Arg(g.Group)+": "+g.Error)
			continue
		}
		if m := g.NotOnTarget(); len(m) > 0 {
			warnf("group %s: %s with a checkpoint but not on this (the target) cluster, left out: %s", safetext.Arg(g.Group), textlist.Count(len(m), "partition"), safetext.Name(strings.Join(m, ", ")))
		}
		if m := g.Missing(); len(m) > 0 {
			warnf("group %s: %s without a checkpoint, not translated: %s", safetext.Arg(g.Group), textlist.Count(len(m), "partition"), safetext.Name(strings.Join(m, ", ")))
		}
		if n := g.Stale(); n > 0 {
			warnf("group %s: %s with a checkpoint older than --max-age %s", safetext.Arg(g.Group), textlist.Count(n, "partition"), res.MaxAge)
		}
		for _, r := range g.Partitions {
			if r.Error != "" {
				errs = append(errs, fmt.Sprintf("group %s %s/%d: %s", safetext.Arg(g.Group), safetext.Name(r.Topic), r.Partition, r.Error))
			}
		}
	}
	return change.ReportErrors(errs)
}

// translatedPlan reads MM2's translation of the groups into a plan of
// group,topic,partition,offset rows for reset --to translated:ALIAS. A
// group without any checkpoint is bad input: there is nothing to move it
// to. Warnings and row errors are those inside the --topic scope: rows
// outside it are not reset, so they neither warn nor fail the group.
func (a *app) translatedPlan(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, alias string, groups []string, scope lag.Scope) (*admin.PlanFile, error) {
	res, err := a.translate(ctx, cfg, adm, alias, groups, 0)
	if err != nil {
		return nil, err
	}
	plan := &admin.PlanFile{Columns: 4, Rows: res.PlanRows()}
	if !scope.Empty() {
		res = scopeRows(res, scope)
	}
	for _, g := range res.Groups {
		if g.Error != "" && len(g.Partitions) == 0 && strings.HasPrefix(g.Error, "no checkpoint") {
			return nil, exitcode.Usagef("group %s has no checkpoint in %s: nothing to translate", safetext.Arg(g.Group), res.CheckpointsTopic)
		}
	}
	if err := translateErrors(res, a.warnf); err != nil {
		return nil, err
	}
	return plan, nil
}

// scopeRows keeps the rows of res inside scope.
func scopeRows(res mirror.Result, scope lag.Scope) mirror.Result {
	groups := make([]mirror.Group, len(res.Groups))
	for i, g := range res.Groups {
		rows := []mirror.Row{}
		for _, r := range g.Partitions {
			if scope.Has(r.Topic, r.Partition) {
				rows = append(rows, r)
			}
		}
		g.Partitions = rows
		groups[i] = g
	}
	res.Groups = groups
	return res
}

// runCrossDiff is diff --profile A --profile B GROUP...: the groups'
// commits on two clusters side by side, or with --translate ALIAS B's
// commits beside MM2's translation of A's.
func (a *app) runCrossDiff(cmd *cobra.Command, args []string, alias string, exitCode bool) error {
	profiles := strings.Split(a.profile, ",")
	if len(profiles) != 2 {
		return exitcode.Usagef("--profile: a cluster diff takes exactly two profiles (A then B), got %d", len(profiles))
	}
	if profiles[0] == profiles[1] {
		return exitcode.Usagef("--profile: A and B are the same profile %s: a cluster diff compares two clusters", safetext.Arg(profiles[0]))
	}
	if len(args) == 0 {
		return exitcode.Usagef("name at least one group to compare across the two clusters")
	}
	if err := checkGroupArgs(args); err != nil {
		return err
	}
	if alias != "" {
		if err := admin.CheckAlias(alias); err != nil {
			return exitcode.Flag("--translate", err)
		}
	}
	groups := lag.Dedupe(args)
	snaps, tr, err := a.gatherTwo(cmd.Context(), profiles, groups, alias)
	if err != nil {
		return err
	}
	var res mirror.DiffResult
	if alias != "" {
		res = mirror.CompareTranslated(snaps[0], tr)
	} else {
		res = mirror.Compare(groups, snaps[0], snaps[1])
	}
	res.A, res.B = profiles[0], profiles[1]
	if alias == "" {
		if none := mirror.Uncommitted(groups, snaps[0], snaps[1]); len(none) > 0 {
			names := make([]string, len(none))
			for i, g := range none {
				names[i] = safetext.Arg(g)
			}
			word := "group"
			if len(none) > 1 {
				word = "groups"
			}
			return exitcode.Usagef("%s %s: no commits on either cluster (%s, %s), nothing to compare (a typo? a cluster diff takes group names, not snapshot files)",
				word, strings.Join(names, ", "), safetext.Arg(profiles[0]), safetext.Arg(profiles[1]))
		}
	}
	werr := report.CrossDiff(a.stdout, a.format, res)
	return withOutput(crossDiffOutcome(res, exitCode), werr)
}

// crossDiffOutcome is exit 1 for a group that could not be compared, or
// with --exit-code for any difference.
func crossDiffOutcome(res mirror.DiffResult, exitCode bool) error {
	var errs []string
	for _, r := range res.Rows {
		if r.Status == mirror.StatusError {
			errs = append(errs, "group "+safetext.Arg(r.Group)+": "+r.Note)
		}
	}
	if err := change.ReportErrors(errs); err != nil {
		return err
	}
	if exitCode && res.Differences > 0 {
		return &exitcode.Error{Code: exitcode.Failure, Err: fmt.Errorf("%d difference(s)", res.Differences)}
	}
	return nil
}

// gatherTwo reads the groups' commits on the two profiles' clusters and,
// with alias, MM2's translation on the second.
func (a *app) gatherTwo(ctx context.Context, profiles []string, groups []string, alias string) ([2]*lag.Snapshot, mirror.Result, error) {
	var snaps [2]*lag.Snapshot
	var tr mirror.Result
	// Both profiles resolved before either cluster is asked anything: a
	// bad B is exit 2 with nothing read.
	var cfgs [2]cluster.Config
	for i, p := range profiles {
		var err error
		if cfgs[i], err = a.configFor(p); err != nil {
			return snaps, tr, err
		}
	}
	var ids [2]string
	for i, p := range profiles {
		cfg := cfgs[i]
		a.conn = &cfg
		_, adm, err := a.admin(ctx)
		a.conn = nil
		if err != nil {
			return snaps, tr, err
		}
		gctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		// Two profiles can name one cluster (two of its brokers, or the
		// same address twice): the diff would compare the cluster with
		// itself and a drill pass on it. The cluster id tells.
		ids[i], err = clusterIDOf(adm)(gctx)
		if err == nil && i == 1 && ids[0] != "" && ids[0] == ids[1] {
			cancel()
			adm.Close()
			return snaps, tr, exitcode.Usagef("--profile: %s and %s reach the same cluster (id %s): a cluster diff compares two clusters",
				safetext.Arg(profiles[0]), safetext.Arg(p), safetext.Arg(ids[0]))
		}
		if err == nil {
			snaps[i], err = lag.Gather(gctx, adm, lag.GatherRequest{Groups: groups})
		}
		cancel()
		if err == nil && i == 1 && alias != "" {
			tr, err = a.translate(ctx, cfg, adm, alias, groups, 0)
		}
		adm.Close()
		if err != nil {
			return snaps, tr, fmt.Errorf("profile %s: %w", safetext.Arg(p), err)
		}
	}
	return snaps, tr, nil
}

// crossDiff reports whether diff compares two clusters (--profile given
// twice) instead of snapshots.
func (a *app) crossDiff() bool { return strings.Contains(a.profile, ",") }

// checkSyncFlags: --target-alias and --offset-syncs-profile only with
// --offset-syncs, which needs the target alias.
func (f translateFlags) checkSyncFlags() error {
	if !f.offsetSyncs {
		if f.targetAlias != "" || f.syncsProfile != "" {
			return exitcode.Usagef("--target-alias and --offset-syncs-profile go with --offset-syncs")
		}
		return nil
	}
	if f.targetAlias == "" {
		return exitcode.Usagef("--offset-syncs needs --target-alias: MM2's alias of this cluster (the topic is mm2-offset-syncs.ALIAS.internal)")
	}
	if err := admin.CheckAlias(f.targetAlias); err != nil {
		return exitcode.Flag("--target-alias", err)
	}
	return nil
}

// syncsConfig resolves --offset-syncs-profile (nil when not given).
func (a *app) syncsConfig(profile string) (*cluster.Config, error) {
	if profile == "" {
		return nil, nil
	}
	scfg, err := a.configFor(profile)
	if err != nil {
		// configFor words its errors for --profile: name this flag.
		if msg, ok := strings.CutPrefix(err.Error(), "--profile "); ok {
			return nil, &exitcode.Error{Code: exitcode.Code(err), Err: errors.New("--offset-syncs-profile " + msg)}
		}
		return nil, err
	}
	return &scfg, nil
}

// addOffsetSyncs reads the offset syncs (on the connected cluster, or at
// the --offset-syncs-profile one) and sets each row's nearest sync.
func (a *app) addOffsetSyncs(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, at *cluster.Config, targetAlias string, res *mirror.Result) error {
	if at != nil {
		sadm, err := at.NewAdmin()
		if err != nil {
			return err
		}
		defer sadm.Close()
		cfg, adm = *at, sadm
	}
	topic := mirror.OffsetSyncsTopic(targetAlias)
	gctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	syncs, skipped, err := mirror.ReadOffsetSyncs(gctx, cfg, adm, topic, res.WantedSyncs())
	if errors.Is(err, mirror.ErrNoTopic) {
		return fmt.Errorf("%s does not exist on that cluster: MM2 writes it to the source cluster unless offset-syncs.topic.location=target (--offset-syncs-profile names the cluster)", topic)
	}
	if err != nil {
		return err
	}
	if skipped > 0 {
		a.warnf("%s: skipped %s that did not decode as offset syncs", topic, textlist.Count(skipped, "record"))
	}
	res.AddSyncs(syncs)
	return nil
}
