package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// connectionArgs are this command line's connection flags (which cluster,
// and how: a profile, brokers, a properties file, TLS and SASL settings),
// for a command printed for the user to paste: without them a pasted line
// reaches KAFKA_BROKERS or localhost instead. None holds a secret
// (passwords and tokens come from files, variables or a prompt, and
// --sasl-password is refused); a resolved secret typed into one anyway is
// redacted, as in the audit log.
func (a *app) connectionArgs() []string {
	var out []string
	add := func(flag, v string) {
		if v != "" {
			out = append(out, "--"+flag, audit.RedactString(v, a.secrets))
		}
	}
	add("profile", a.profile)
	brokers := a.brokers
	if brokers == "" && a.profile == "" && a.commandConfig == "" && a.conn != nil {
		// Reached through KAFKA_BROKERS (or the default): named, so that
		// the line pasted in another shell reaches this cluster too.
		brokers = strings.Join(a.conn.Brokers, ",")
	}
	add("brokers", brokers)
	add("command-config", a.commandConfig)
	if a.tlsOn {
		out = append(out, "--tls")
	}
	add("tls-ca", a.tlsCA)
	add("tls-cert", a.tlsCert)
	add("tls-key", a.tlsKey)
	add("tls-server-name", a.tlsServerName)
	if a.tlsInsecure {
		out = append(out, "--tls-insecure-skip-verify")
	}
	add("sasl-mechanism", a.saslMechanism)
	add("sasl-user", a.saslUser)
	add("sasl-password-file", a.saslPasswordFile)
	add("sasl-token-file", a.saslTokenFile)
	return out
}

// trailArgs are this command line's flags saying where the audit trail
// is, for a printed command that names an entry by its id: it is found
// only there.
func (a *app) trailArgs() []string {
	var out []string
	if a.auditLog != "" {
		out = append(out, "--audit-log", audit.RedactString(a.auditLog, a.secrets))
	}
	if a.auditTopic != "" {
		out = append(out, "--audit-topic", audit.RedactString(a.auditTopic, a.secrets))
	}
	return out
}

// prog is how a command printed for the user to paste starts (an undo, a
// restore, a check): offsetctl and this command line's connection and
// trail flags, shell-quoted, so that it acts on the cluster this command
// acted on and finds its audit entry.
func (a *app) prog() string {
	return commandLine(append(a.connectionArgs(), a.trailArgs()...))
}

// commandLine is a command for the user to paste: offsetctl, then flags
// and args, each word shell-quoted (safetext.Shell).
func commandLine(flags []string, args ...string) string {
	words := []string{"offsetctl"}
	for _, w := range append(append([]string(nil), flags...), args...) {
		words = append(words, shellQuote(w))
	}
	return strings.Join(words, " ")
}

// brokersAlias reads --bootstrap-server, as kafka-consumer-groups.sh and
// the other Apache tools spell it, as --brokers.
func brokersAlias(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if name == "bootstrap-server" {
		name = "brokers"
	}
	return pflag.NormalizedName(name)
}

// recordedConnection is how entry e reached its cluster: the connection
// flags of its recorded command line (parsed with offsetctl's own global
// flags; the rest of the line is skipped), else --brokers with the
// bootstrap list it recorded (it connected through KAFKA_BROKERS or the
// default). nil when the entry says neither.
func recordedConnection(e audit.Entry) []string {
	var rec app
	fs := pflag.NewFlagSet("recorded", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetNormalizeFunc(brokersAlias)
	rec.persistentFlags(fs)
	_ = fs.Parse(e.Command) // what was read before a parse error still counts
	args := rec.connectionArgs()
	if rec.brokers == "" && rec.profile == "" && rec.commandConfig == "" && len(e.Brokers) > 0 {
		args = append([]string{"--brokers", strings.Join(e.Brokers, ",")}, args...)
	}
	return args
}

// entryCheck is what checkEntryCluster needs of the command that acts on
// an entry: what it cannot do elsewhere, and its own arguments after the
// global flags, to print the command that reaches the right cluster.
type entryCheck struct {
	refusal string   // "it cannot be verified here"
	retry   []string // "history", "--verify", ID
	// override names the flag that acts on an entry of another cluster
	// anyway ("" when the command has none), and other is its value.
	override, other string
}

// checkEntryCluster checks, before entry e is applied or verified, that it
// was recorded on the cluster adm is connected to: its changes, backup and
// offsets are that cluster's. An entry of another cluster is bad input
// (exit 2: the command was pointed at the wrong cluster), refused before
// anything is read or changed for it, in one line naming both ids, how
// the entry reached its cluster and the command that reaches it again.
// An entry that records no id (an older offsetctl, or its cluster did not
// answer then) cannot be checked: it is let through with a warning.
func (a *app) checkEntryCluster(ctx context.Context, cfg cluster.Config, adm *cluster.Admin, e audit.Entry, c entryCheck) error {
	mctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	m, err := adm.BrokerMetadata(mctx)
	cancel()
	if err != nil {
		return fmt.Errorf("cannot tell whether entry %s was recorded on this cluster (its id): %w", e.ID, cfg.Unreachable(err))
	}
	here := m.Cluster
	hereWord := safetext.Arg(here)
	if here == "" {
		hereWord = "it reports no cluster id"
	}
	switch e.ClusterID {
	case "":
		if c.other != "" {
			return exitcode.Usagef("%s: entry %s records no cluster id: leave the flag out", c.override, e.ID)
		}
		a.warnf("entry %s records no cluster id (written by an older offsetctl, or its cluster did not answer then): it cannot be checked that it was recorded on this cluster (%s)", e.ID, hereWord)
		return nil
	case here:
		if c.other != "" {
			return exitcode.Usagef("%s: entry %s was recorded on the cluster connected now (%s): leave the flag out", c.override, e.ID, hereWord)
		}
		return nil
	}
	if c.other != "" {
		// Named, not assumed: the id typed must be the one the entry
		// records, so a flag left in a script never applies some other
		// entry to the wrong cluster.
		if c.other != e.ClusterID {
			return exitcode.Usagef("%s %s: entry %s was recorded on cluster %s, not that one; the cluster connected now is %s", c.override, safetext.Arg(c.other), e.ID, safetext.Arg(e.ClusterID), hereWord)
		}
		a.warnf("entry %s was recorded on cluster %s; %s: acting on it on the cluster connected now (%s)", e.ID, safetext.Arg(e.ClusterID), c.override, hereWord)
		return nil
	}
	how := ""
	var parts []string
	if e.Profile != "" {
		parts = append(parts, "profile "+safetext.QuotedArg(e.Profile))
	}
	if len(e.Brokers) > 0 {
		parts = append(parts, "brokers "+safetext.Arg(strings.Join(e.Brokers, ",")))
	}
	if len(parts) > 0 {
		how = " (" + strings.Join(parts, ", ") + ")"
	}
	retry := "point --brokers or --profile at that cluster and run the command again"
	if conn := recordedConnection(e); len(conn) > 0 {
		retry = "run it against that cluster: " + commandLine(append(conn, a.trailArgs()...), c.retry...)
	}
	if c.override != "" {
		retry += fmt.Sprintf(" (only if the cluster connected now is that cluster rebuilt under a new id: add %s %s)", c.override, shellQuote(e.ClusterID))
	}
	return exitcode.Usagef("entry %s was recorded on cluster %s%s, not on the cluster connected now (%s): %s; %s",
		e.ID, safetext.Arg(e.ClusterID), how, hereWord, c.refusal, retry)
}
