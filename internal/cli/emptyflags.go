package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// ownEmpty lists, per command, the flags whose empty value the command
// refuses itself, in its own words (what is missing, what to give); the
// root's are checked in preRun before checkEmptyFlags. Every other string
// flag whose default is empty is refused by checkEmptyFlags.
var ownEmpty = map[string][]string{
	"offsetctl":      {"brokers", "audit-topic"},
	"reset":          {"to", "backup"},
	"delete-offsets": {"backup"},
	"delete-group":   {"backup"},
	"undo":           {"backup"},
	"diff":           {"translate"},
	"groups":         {"min-lag", "min-time-lag"},
	"lag":            {"min-lag", "min-time-lag", "assume-reset"},
	"history":        {"group", "topic", "since", "verify"},
	"replay":         {"partitions", "produce-to", "transactional-id", "checkpoint", "shard", "digest-out"},
	"semantics":      {"log-dir"},
	"snapshot":       {"out"},
	"translate":      {"source-alias", "target-alias"},
	"exporter":       {"listen"},
}

// emptyHints say what to give instead of an empty value, where more can
// be said than "give a value".
var emptyHints = map[string]string{
	"audit-log":         "name the log file, or leave the flag out for the default log ($OFFSETCTL_AUDIT_LOG, else the state directory); --no-audit keeps none",
	"audit-rotate-size": "give a size such as 64MiB (0: never rotate), or leave the flag out",
	"client-id":         "give the client id, or leave the flag out for offsetctl",
	"profile":           "name a profile, or leave the flag out",
	"out":               "name the file, or leave the flag out (or give -) for stdout",
	"until":             "give an end, or leave the flag out for the end offsets captured at start",
}

// checkEmptyFlags refuses, before any request, a string flag given an
// empty or blank value when its default is empty: the value then meant
// the default without a word (--audit-log "$LOG" with LOG unset wrote to
// the default log; replay --out "" wrote the records to stdout, --until ""
// read to the end). An unset shell variable is the usual cause.
func checkEmptyFlags(cmd *cobra.Command) error {
	own := map[string]bool{}
	for _, n := range append(append([]string(nil), ownEmpty["offsetctl"]...), ownEmpty[cmd.Name()]...) {
		own[n] = true
	}
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || !f.Changed || f.DefValue != "" || f.Value.Type() != "string" || own[f.Name] {
			return
		}
		if strings.TrimSpace(f.Value.String()) != "" {
			return
		}
		hint := emptyHints[f.Name]
		if hint == "" {
			hint = "give a value, or leave the flag out"
		}
		err = exitcode.Usagef("--%s is empty: %s (an unset shell variable?)", f.Name, hint)
	})
	return err
}
