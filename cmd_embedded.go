package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
)

func (a *app) playgroundCmd() *cobra.Command {
	var (
		listen  string
		brokers int
		empty   bool
	)
	cmd := &cobra.Command{
		Use:   "playground",
		Short: "Run an in-process Kafka cluster to try offsetctl on, until Ctrl-C",
		Example: `  offsetctl playground                       # 3 brokers from 127.0.0.1:9092, seeded
  offsetctl playground --listen 127.0.0.1:19092 --empty`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if brokers < 1 || brokers > 16 {
				return exitcode.Usagef("--brokers-count must be between 1 and 16, got %d", brokers)
			}
			emb, err := cluster.StartEmbedded(cluster.EmbeddedOptions{Brokers: brokers, Listen: listen})
			if err != nil {
				return exitcode.AsUsage(err)
			}
			defer emb.Close()
			cfg := emb.Config()
			if !empty {
				if err := cluster.Seed(cmd.Context(), cfg); err != nil {
					return err
				}
			}
			addr := strings.Join(cfg.Brokers, ",")
			fmt.Fprintf(a.stdout, "playground: %d brokers at %s\n", brokers, addr)
			if !empty {
				fmt.Fprintf(a.stdout, "seeded: topic %s (%d partitions, %d events), group %s with commits\n",
					cluster.DemoTopic, cluster.DemoPartitions, cluster.DemoEvents, cluster.DemoGroup)
			}
			fmt.Fprintf(a.stdout, "\ntry, in another terminal:\n  export KAFKA_BROKERS=%s\n  offsetctl groups\n  offsetctl lag %s\n  offsetctl lag --all-groups -o json\n\nCtrl-C stops the cluster (all data is in memory).\n", addr, cluster.DemoGroup)
			<-cmd.Context().Done()
			fmt.Fprintln(a.stderr, "playground: stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:9092", "host:port of the first broker; the others take the next ports (port 0: random)")
	cmd.Flags().IntVar(&brokers, "brokers-count", 3, "number of brokers")
	cmd.Flags().BoolVar(&empty, "empty", false, "start with no topics or groups")
	return cmd
}

func (a *app) demoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "A guided tour on an in-process cluster: no broker needed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.demo(cmd.Context())
		},
	}
}

// demo runs the tour on a fresh embedded cluster; each section runs the
// real command through the same code path a user gets.
func (a *app) demo(ctx context.Context) error {
	emb, err := cluster.StartEmbedded(cluster.EmbeddedOptions{Brokers: 3})
	if err != nil {
		return err
	}
	defer emb.Close()
	cfg := emb.Config()
	addr := strings.Join(cfg.Brokers, ",")
	section := func(n int, title, equivalent string) {
		fmt.Fprintf(a.stdout, "\n== %d. %s\n", n, title)
		if equivalent != "" {
			fmt.Fprintf(a.stdout, "   on a real cluster: %s\n\n", equivalent)
		}
	}
	sub := func(args ...string) error {
		sa := &app{stdout: a.stdout, stderr: a.stderr, stdin: a.stdin, getenv: a.getenv, now: a.now}
		full := append([]string{"--brokers", addr}, args...)
		if code := sa.execute(ctx, full); code != 0 {
			return fmt.Errorf("demo step `offsetctl %s` failed (exit %d)", strings.Join(args, " "), code)
		}
		return nil
	}
	fmt.Fprintf(a.stdout, "offsetctl demo: an in-process Kafka cluster (%d brokers) at %s\n", 3, addr)

	section(1, fmt.Sprintf("create topic %q (%d partitions), produce %d events, commit group %q",
		cluster.DemoTopic, cluster.DemoPartitions, cluster.DemoEvents, cluster.DemoGroup), "")
	if err := cluster.Seed(ctx, cfg); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "   done")

	section(2, "consumer groups", "offsetctl -b BROKERS groups")
	if err := sub("groups"); err != nil {
		return err
	}
	section(3, "lag of "+cluster.DemoGroup, "offsetctl -b BROKERS lag "+cluster.DemoGroup+" --time-lag")
	if err := sub("lag", cluster.DemoGroup, "--time-lag"); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "\ndemo finished: the cluster is gone. `offsetctl playground` keeps one running.")
	return nil
}
