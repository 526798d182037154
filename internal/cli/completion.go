package cli

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/lag"
)

// completionTimeout bounds the cluster round trip behind a TAB press when
// --timeout is not given: a shell must not hang on an unreachable broker.
const completionTimeout = 3 * time.Second

// registerCompletions adds dynamic shell completion: group names for the
// commands that take groups, topic names for replay and every --topic, and
// the fixed values of the enumerated flags. Completion never prompts for a
// password (the shell owns the terminal) and answers nothing, rather than an
// error, when the cluster cannot be reached.
func (a *app) registerCompletions(root *cobra.Command) {
	// Positional arguments: the names already on the line are not offered
	// again. Flag values: the positional arguments say nothing about them
	// (a topic may share a group's name).
	groups := cobra.CompletionFunc(a.completeGroups)
	groupList := a.commaList(a.completeGroups)
	topics := cobra.CompletionFunc(a.completeTopics)
	flagGroups := func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.completeGroups(cmd, nil, toComplete)
	}
	fixed := func(vals ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = root.RegisterFlagCompletionFunc("sasl-mechanism", fixed(cluster.Mechanisms...))
	for _, c := range root.Commands() {
		switch c.Name() {
		case "lag", "reset", "delete-group", "delete-offsets":
			c.ValidArgsFunction = groups
		case "replay":
			c.ValidArgsFunction = firstArg(topics)
			_ = c.RegisterFlagCompletionFunc("produce-to", topics)
			_ = c.RegisterFlagCompletionFunc("verify-groups", groupList)
			_ = c.RegisterFlagCompletionFunc("format", fixed("jsonl", "raw", "none"))
			_ = c.RegisterFlagCompletionFunc("isolation", fixed("committed", "uncommitted"))
			_ = c.RegisterFlagCompletionFunc("partitioner", fixed("same", "key"))
			_ = c.RegisterFlagCompletionFunc("from", prefixes("earliest", "time:", "ago:"))
			_ = c.RegisterFlagCompletionFunc("until", prefixes("time:", "ago:"))
		case "groups":
			_ = c.RegisterFlagCompletionFunc("state", a.commaList(func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return lag.GroupStates, cobra.ShellCompDirectiveNoFileComp
			}))
		}
		if c.Name() == "lag" {
			_ = c.RegisterFlagCompletionFunc("isolation", fixed("uncommitted", "committed"))
		}
		if c.Flags().Lookup("topic") != nil {
			_ = c.RegisterFlagCompletionFunc("topic", topics)
		}
		if c.Name() == "reset" {
			_ = c.RegisterFlagCompletionFunc("group", flagGroups)
		}
	}
}

// prefixes offers fixed values; a value ending in ':' takes more text, so
// the shell adds no space after it.
func prefixes(vals ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		out := filterCompletions(vals, nil, toComplete)
		dir := cobra.ShellCompDirectiveNoFileComp
		for _, v := range out {
			if strings.HasSuffix(v, ":") {
				dir |= cobra.ShellCompDirectiveNoSpace
			}
		}
		return out, dir
	}
}

// commaList completes the last item of a comma-separated list flag
// (--state Empty,St<TAB>) with what names offers, skipping items already
// in the list.
func (a *app) commaList(names cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		head, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head, last = toComplete[:i+1], toComplete[i+1:]
		}
		all, dir := names(cmd, nil, "")
		used := strings.Split(strings.TrimSuffix(head, ","), ",")
		var out []cobra.Completion
		for _, n := range filterCompletions(all, used, last) {
			out = append(out, head+n)
		}
		return out, dir
	}
}

// completionAdmin opens an admin client for completion: no prompt, a short
// timeout unless --timeout was given.
func (a *app) completionAdmin(cmd *cobra.Command) (context.Context, *cluster.Admin, func(), error) {
	a.noPrompt = true
	timeout := completionTimeout
	if f := cmd.Flags().Lookup("timeout"); f != nil && f.Changed && a.timeout > 0 {
		timeout = a.timeout
	}
	cfg, err := a.clusterConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg.Timeout = timeout
	adm, err := cfg.NewAdmin()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
	return ctx, adm, func() { cancel(); adm.Close() }, nil
}

// completeGroups completes consumer-group names not already on the line.
func (a *app) completeGroups(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, adm, done, err := a.completionAdmin(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	listed, err := lag.ListGroups(ctx, adm)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return filterCompletions(lag.ConsumerGroupNames(listed), args, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// firstArg completes only a command's first positional argument, with f.
func firstArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, args, toComplete)
	}
}

// completeTopics completes topic names (internal topics left out), all of
// them whatever is on the line: a topic may share a group's name. A value
// of the TOPIC:P,P form is left alone after the colon.
func (a *app) completeTopics(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, ":") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, adm, done, err := a.completionAdmin(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	td, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, t := range td.Sorted() {
		if !t.IsInternal && t.Err == nil {
			names = append(names, t.Topic)
		}
	}
	return filterCompletions(names, nil, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeResetTarget completes reset --to: the fixed targets, and after
// "group:" the groups of the cluster.
func (a *app) completeResetTarget(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if rest, ok := strings.CutPrefix(toComplete, "group:"); ok {
		names, dir := a.completeGroups(cmd, nil, rest)
		for i := range names {
			names[i] = "group:" + names[i]
		}
		return names, dir
	}
	if strings.HasPrefix(toComplete, "file:") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return prefixes("earliest", "latest", "current", "shift:", "time:", "ago:", "file:", "group:", "translated:")(cmd, nil, toComplete)
}

// filterCompletions keeps the names that start with prefix and are not in
// used, sorted.
func filterCompletions(names, used []string, prefix string) []cobra.Completion {
	skip := make(map[string]bool, len(used))
	for _, u := range used {
		skip[u] = true
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !skip[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
