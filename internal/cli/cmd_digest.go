package cli

import (
	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/replay"
	"github.com/offsetctl/offsetctl/report"
)

func (a *app) digestCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "digest",
		Short: "Work with replay digest files (merge the shards of a sharded replay)",
		Long: `digest works with the files replay --digest-out writes. Reads local files
only; it never contacts a cluster.`,
		Example: `  offsetctl digest merge shard-0.json shard-1.json shard-2.json`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitcode.Usagef("name a subcommand: offsetctl digest merge FILE...")
		},
	}
	cmd.AddCommand(a.digestMergeCmd())
	return cmd
}

func (a *app) digestMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge SHARD_DIGEST_FILE...",
		Short: "Combine the digest files of a sharded replay into the digest one unsharded run gives",
		Long: `merge reads the shard digest files that replay --shard I/N --digest-out FILE
wrote, one per shard, and prints the audit digest that one unsharded replay of
the same range gives (digest_version 1: the per-partition hashes in ascending
partition order). It refuses, exit 2 with one line: files of different
topics, isolations, replay --from/--until or selections; different shard counts; the
same shard or a partition twice (overlap); a shard not given (missing); a
shard that stopped before the end of its range; mixed digest versions. A shard
whose proof failed (a group with no live member moved) is exit 3.`,
		Example: `  offsetctl digest merge shard-0.json shard-1.json shard-2.json
  offsetctl digest merge shards/*.json -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := replay.MergeDigestFiles(args)
			if res != nil {
				if rerr := report.DigestMerge(a.stdout, a.format, res); rerr != nil && err == nil {
					err = rerr
				}
			}
			return err
		},
	}
}
