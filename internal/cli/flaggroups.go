package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
)

// The annotations cobra keeps its flag rules in (MarkFlagRequired,
// MarkFlagsRequiredTogether, MarkFlagsOneRequired,
// MarkFlagsMutuallyExclusive; cobra v1.10 flag_groups.go). Only the first
// is exported; TestFlagGroupWords fails if cobra renames the others, and
// checkFlagGroups still exits 2 with cobra's own words meanwhile.
const (
	annRequired  = cobra.BashCompOneRequiredFlag
	annTogether  = "cobra_annotation_required_if_others_set"
	annOneOf     = "cobra_annotation_one_required"
	annExclusive = "cobra_annotation_mutually_exclusive"
)

// checkFlagGroups runs cobra's checks of required flags and flag groups
// before the command's own code, as bad usage. cobra runs them itself
// only after PersistentPreRunE, where they are no longer told from an
// operational failure: `history --verify ID --since 7d` exited 1 with
// "if any flags in the group [verify since] are set none of the others
// can be; [since verify] were all set". Here it is exit 2 and a line in
// offsetctl's words ("--verify and --since contradict each other").
func checkFlagGroups(cmd *cobra.Command) error {
	err := cmd.ValidateRequiredFlags()
	if err == nil {
		err = cmd.ValidateFlagGroups()
	}
	if err == nil {
		return nil
	}
	if words := flagGroupWords(cmd.Flags()); words != "" {
		return exitcode.Usagef("%s", words)
	}
	return exitcode.AsUsage(err) // cobra's words: exit 2 all the same
}

// flagGroupWords says which flag rule the set flags of fs break, checked
// in cobra's order (required flags, then groups required together, one
// required, mutually exclusive; groups sorted by their flags), or "".
func flagGroupWords(fs *pflag.FlagSet) string {
	var missing []string
	fs.VisitAll(func(f *pflag.Flag) {
		if v := f.Annotations[annRequired]; len(v) > 0 && v[0] == "true" && !f.Changed {
			missing = append(missing, "--"+f.Name)
		}
	})
	if len(missing) > 0 {
		return listWords(missing, "and") + isAre(len(missing)) + " required"
	}
	for _, g := range flagGroups(fs, annTogether) {
		set, unset := splitSet(fs, g)
		if len(set) > 0 && len(unset) > 0 {
			return listWords(dashed(g), "and") + " go together: " + listWords(dashed(unset), "and") + isAre(len(unset)) + " missing"
		}
	}
	for _, g := range flagGroups(fs, annOneOf) {
		if set, _ := splitSet(fs, g); len(set) == 0 {
			return "give one of " + listWords(dashed(g), "or")
		}
	}
	for _, g := range flagGroups(fs, annExclusive) {
		if set, _ := splitSet(fs, g); len(set) > 1 {
			return listWords(dashed(set), "and") + " contradict each other"
		}
	}
	return ""
}

// flagGroups lists the groups (flag names in the order they were marked)
// recorded under annotation ann, sorted as cobra checks them; a group
// naming a flag fs does not have is left out, as cobra leaves it.
func flagGroups(fs *pflag.FlagSet, ann string) [][]string {
	seen := map[string]bool{}
	var keys []string
	fs.VisitAll(func(f *pflag.Flag) {
		for _, g := range f.Annotations[ann] {
			if !seen[g] {
				seen[g] = true
				keys = append(keys, g)
			}
		}
	})
	sort.Strings(keys)
	var out [][]string
	for _, k := range keys {
		names := strings.Fields(k)
		all := true
		for _, n := range names {
			all = all && fs.Lookup(n) != nil
		}
		if all {
			out = append(out, names)
		}
	}
	return out
}

// splitSet splits a group's flags into those given on the command line
// and the others, in the group's order.
func splitSet(fs *pflag.FlagSet, group []string) (set, unset []string) {
	for _, n := range group {
		if fs.Lookup(n).Changed {
			set = append(set, n)
		} else {
			unset = append(unset, n)
		}
	}
	return set, unset
}

func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

func dashed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return out
}

// listWords joins "a", "a and b", "a, b and c" (conj "and" or "or").
func listWords(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
