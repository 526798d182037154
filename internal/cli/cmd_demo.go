package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/semantics"
	"github.com/offsetctl/offsetctl/report"
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
		Example: `  offsetctl playground                       # 3 brokers from 127.0.0.1:9092, with demo data
  offsetctl playground --listen 127.0.0.1:19092 --empty`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if brokers < 1 || brokers > 16 {
				return exitcode.Usagef("--brokers-count must be between 1 and 16, got %d", brokers)
			}
			if err := cluster.CheckListen(listen, brokers); err != nil {
				return exitcode.Flag("--listen", err)
			}
			// A port in use is a state of the machine, not bad usage: exit 1.
			emb, err := cluster.StartEmbedded(cluster.EmbeddedOptions{Brokers: brokers, Listen: listen})
			if err != nil {
				return err
			}
			defer emb.Close()
			cfg := emb.Config()
			if !empty {
				if err := cluster.Seed(cmd.Context(), cfg); err != nil {
					return err
				}
			}
			addr := strings.Join(cfg.Brokers, ",")
			noun := "brokers"
			if brokers == 1 {
				noun = "broker"
			}
			fmt.Fprintf(a.stdout, "playground: %d %s at %s\n", brokers, noun, addr)
			if !empty {
				fmt.Fprintf(a.stdout, "created: topic %s (%d partitions, %d events), group %s with commits\n",
					cluster.DemoTopic, cluster.DemoPartitions, cluster.DemoEvents, cluster.DemoGroup)
			}
			try := "  offsetctl groups\n  offsetctl lag " + cluster.DemoGroup + "\n  offsetctl lag --all-groups -o json\n"
			if empty {
				try = "  offsetctl groups\n  offsetctl semantics --keep\n  offsetctl lag --all-groups\n"
			}
			fmt.Fprintf(a.stdout, "\ntry, in another terminal:\n  export KAFKA_BROKERS=%s\n%s\nCtrl-C stops the cluster (all data is in memory).\n", addr, try)
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
		Example: `  offsetctl demo
  offsetctl demo | less      # the tour is long; its files are kept (it says where)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.demo(cmd.Context())
		},
	}
}

// demo runs the tour on a fresh embedded cluster. Each section runs the
// real command through the same code path a user gets, and prints the
// equivalent command for a real cluster.
func (a *app) demo(ctx context.Context) error {
	emb, err := cluster.StartEmbedded(cluster.EmbeddedOptions{Brokers: 3})
	if err != nil {
		return err
	}
	defer emb.Close()
	cfg := emb.Config()
	addr := strings.Join(cfg.Brokers, ",")
	// The demo's files (its backups, the replayed events) are kept and
	// named at the start and the end: the undo lines the resets print
	// name them, and a user may want to read a backup. They are examples:
	// the cluster they belong to ends with the demo.
	tmp := a.getenv("TMPDIR")
	if tmp == "" {
		tmp = os.TempDir()
	}
	dir, err := os.MkdirTemp(tmp, "offsetctl-demo-")
	if err != nil {
		return err
	}

	const (
		topic = cluster.DemoTopic
		amo   = topic + "-at-most-once"
		alo   = topic + "-at-least-once"
	)
	backup := filepath.Join(dir, "backup-"+alo+".csv")
	section := a.demoSection
	// The tour is read top to bottom: the notes each step writes to stderr
	// (dry run, backup path, verified) go inline with its output.
	sub := func(args ...string) error {
		sa := &app{stdout: a.stdout, stderr: a.stdout, stdin: a.stdin, getenv: a.getenv, now: a.now}
		// The tour's changes are recorded in its own audit log, next to
		// its backups: a throwaway cluster has no place in the user's
		// trail.
		full := append([]string{"--brokers", addr, "--audit-log", filepath.Join(dir, "audit.jsonl")}, args...)
		if code := sa.execute(ctx, full); code != 0 {
			return fmt.Errorf("demo step `offsetctl %s` failed (exit %d)", strings.Join(args, " "), code)
		}
		return nil
	}
	fmt.Fprintf(a.stdout, "offsetctl demo: an in-process Kafka cluster (3 brokers) at %s\n", addr)
	fmt.Fprintf(a.stdout, "the demo's files (backups, replayed events, its audit log) go to %s and are kept\n", dir)

	if err := a.demoExperiment(ctx, cfg); err != nil {
		return err
	}

	// The hints are for the topic and groups of a real semantics --keep
	// run, which names them (TOPIC): not the demo's own names.
	section(3, "lag of the experiment's groups (both read to the end)", "offsetctl -b BROKERS lag TOPIC-at-most-once TOPIC-at-least-once")
	if err := sub("lag", amo, alo); err != nil {
		return err
	}

	section(4, "reset "+alo+" to earliest: a dry run, then --execute with a backup",
		"offsetctl -b BROKERS reset TOPIC-at-least-once --topic TOPIC --to earliest [--execute --backup BACKUP.csv]")
	if err := sub("reset", alo, "--topic", topic, "--to", "earliest"); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	if err := sub("reset", alo, "--topic", topic, "--to", "earliest", "--execute", "--backup", backup); err != nil {
		return err
	}

	section(5, "replay "+topic+" from offset 0 with no group: every event, an audit digest, and proof no group moved",
		"offsetctl -b BROKERS replay TOPIC --from earliest --out TOPIC.jsonl")
	if err := sub("replay", topic, "--from", "earliest", "--out", filepath.Join(dir, topic+".jsonl"), "--quiet"); err != nil {
		return err
	}

	section(6, "restore "+alo+" from its backup, and its lag again",
		"offsetctl -b BROKERS reset TOPIC-at-least-once --to file:BACKUP.csv --execute")
	if err := sub("reset", alo, "--to", "file:"+backup, "--execute", "--backup", filepath.Join(dir, "backup-2.csv")); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	if err := sub("lag", alo); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\ndemo finished: the cluster is gone, so the undo lines above are examples: on a real cluster\n"+
		"they restore the group. The demo's files are kept in %s (the backups, in the CSV\n"+
		"kafka-consumer-groups.sh --reset-offsets --from-file reads, and %s.jsonl); delete it when done.\n"+
		"`offsetctl playground` keeps a cluster running.\n", dir, topic)
	return nil
}

// demoSection starts a section of the tour: its number, its title, the
// command that does the same on a real cluster, and notes on it.
func (a *app) demoSection(n int, title, equivalent string, notes ...string) {
	fmt.Fprintf(a.stdout, "\n== %d. %s\n", n, title)
	if equivalent != "" {
		fmt.Fprintf(a.stdout, "   on a real cluster: %s\n", equivalent)
	}
	for _, n := range notes {
		fmt.Fprintf(a.stdout, "   %s\n", n)
	}
	fmt.Fprintln(a.stdout)
}

// demoExperiment is the tour's sections 1 and 2: the topic filled, then
// the crash experiment at most once and at least once.
func (a *app) demoExperiment(ctx context.Context, cfg cluster.Config) error {
	a.demoSection(1, fmt.Sprintf("create topic %q (%d partitions) and produce %d numbered events", cluster.DemoTopic, cluster.DemoPartitions, cluster.DemoEvents), "")
	first := true
	res, err := a.semanticsExperiment(ctx, cfg, semantics.Options{
		Topic: cluster.DemoTopic, Events: cluster.DemoEvents, Partitions: cluster.DemoPartitions,
		Modes: []semantics.Mode{semantics.AtMostOnce, semantics.AtLeastOnce},
		Keep:  true, NoReplay: true,
		Progress: func(line string) {
			if first { // the first line reports the filled topic
				first = false
				fmt.Fprintf(a.stdout, "   %s\n", line)
				// A real run names its topic <prefix>-<hex> and deletes
				// it and its groups at the end: --keep keeps them for
				// the next sections' hints, which say TOPIC.
				a.demoSection(2, "crash a consumer right after event 25 (batches of 10): at-most-once vs at-least-once",
					"offsetctl -b BROKERS semantics --modes at-most-once,at-least-once --keep",
					"(--keep keeps its topic and groups; TOPIC below is the topic its \"kept:\" line names)")
			}
		},
	})
	if err != nil {
		return err
	}
	return report.Semantics(a.stdout, report.Table, res)
}
