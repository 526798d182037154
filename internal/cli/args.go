package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/admin"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// Argument checks with messages that name the command and show its usage,
// instead of cobra's "accepts 1 arg(s), received 2". All are exit 2.

// noArgs refuses any positional argument.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		var subs []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				subs = append(subs, c.Name())
			}
		}
		return exitcode.Usagef("unknown command %s for %s (its commands: %s)", quoteArgs(args[:1]), subcommand(cmd), strings.Join(subs, ", "))
	}
	return exitcode.Usagef("%s takes no arguments, got %s: %s", subcommand(cmd), quoteArgs(args), usageLine(cmd))
}

// exactlyOne wants one argument, what names it ("the group").
func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return exitcode.Usagef("name %s: %s", what, usageLine(cmd))
		}
		return exitcode.Usagef("%s takes one argument (%s), got %d: %s: %s", subcommand(cmd), what, len(args), quoteArgs(args), usageLine(cmd))
	}
}

// atLeastOne wants one or more arguments, what names them.
func atLeastOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return exitcode.Usagef("name %s: %s", what, usageLine(cmd))
		}
		return nil
	}
}

// subcommand is the command's path without the program name: the error
// line already starts with "offsetctl: ".
func subcommand(cmd *cobra.Command) string {
	if cmd.HasParent() {
		return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	return cmd.CommandPath()
}

func usageLine(cmd *cobra.Command) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(cmd.UseLine()), " "), " [flags]")
}

// quoteArgs quotes the first five arguments (each cut at 80 bytes) and
// counts the rest: a glob can expand to thousands.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:80] + "..."
		}
		q[i] = fmt.Sprintf("%q", a)
	}
	return textlist.Short(q, 5, " ")
}

// checkGroupArgs refuses, before any request, a group argument that is
// empty or longer than the protocol carries (admin.CheckGroupArg).
func checkGroupArgs(groups []string) error {
	for _, g := range groups {
		if err := admin.CheckGroupArg(g); err != nil {
			return exitcode.AsUsage(err)
		}
	}
	return nil
}
