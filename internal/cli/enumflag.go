package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/semantics"
)

// enum describes a flag whose values come from a fixed set (gh's
// cmdutil.StringEnumFlag is the model): the choices are listed in --help,
// offered by shell completion, and a value is checked as the flag is
// parsed, by the package's own parser, so its bad-input line is the one
// the command always printed.
type enum struct {
	// choices as --help shows them. A choice with a ':' is a prefix that
	// takes more text ("shift:±N"): completion offers it up to the colon,
	// with no space after it.
	choices []string
	// parse checks a value; its error, after the flag's name, is the
	// bad-input line (exit 2). nil: the command checks the value itself
	// (reset --to, whose forms take a file or a group).
	parse func(string) error
	// list: the value is a comma-separated list of choices (--modes).
	list bool
	// complete replaces the completion of the choices (reset --to, which
	// also completes the groups after group:).
	complete cobra.CompletionFunc
}

// enumValue is the pflag.Value of an enum flag.
type enumValue struct {
	p    *string
	name string
	enum
}

func (e *enumValue) String() string { return *e.p }
func (e *enumValue) Type() string   { return "string" }
func (e *enumValue) Set(s string) error {
	if e.parse != nil {
		if err := e.parse(s); err != nil {
			return &enumError{exitcode.Flag("--"+e.name, err)}
		}
	}
	*e.p = s
	return nil
}

// enumError carries an enum flag's bad-input error through pflag (which
// wraps it as `invalid argument "x" for "--by" flag: ...`) to the root's
// flag error function, which hands it on as it was made.
type enumError struct{ err error }

func (e *enumError) Error() string { return e.err.Error() }
func (e *enumError) Unwrap() error { return e.err }

// unwrapEnumError returns the error an enum flag made, or err.
func unwrapEnumError(err error) error {
	var ee *enumError
	if errors.As(err, &ee) {
		return ee.err
	}
	return err
}

// enumVar defines an enum flag: usage is followed by its choices,
// "{a|b|c}".
func enumVar(fs *pflag.FlagSet, p *string, name, shorthand, value, usage string, e enum) {
	*p = value
	fs.VarP(&enumValue{p: p, name: name, enum: e}, name, shorthand, usage+" {"+strings.Join(e.choices, "|")+"}")
}

// completions is what the shell offers for the choices, in their order:
// each up to and including its ':' if it has one (no space after it).
func (e *enumValue) completions() cobra.CompletionFunc {
	if e.complete != nil {
		return e.complete
	}
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		dir := cobra.ShellCompDirectiveNoFileComp
		for _, c := range e.choices {
			if j := strings.IndexByte(c, ':'); j >= 0 {
				c = c[:j+1]
			}
			if strings.HasPrefix(c, toComplete) {
				out = append(out, c)
				if strings.HasSuffix(c, ":") {
					dir |= cobra.ShellCompDirectiveNoSpace
				}
			}
		}
		return out, dir
	}
}

// registerEnumCompletions gives every enum flag of the tree its
// completion (a list flag completes its last item).
func (a *app) registerEnumCompletions(c *cobra.Command) {
	register := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			e, ok := f.Value.(*enumValue)
			if !ok {
				return
			}
			complete := e.completions()
			if e.list {
				complete = a.commaList(complete)
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, complete)
		})
	}
	register(c.PersistentFlags())
	register(c.LocalNonPersistentFlags())
	for _, sub := range c.Commands() {
		a.registerEnumCompletions(sub)
	}
}

// modeChoices are the values of semantics --modes: every mode, and all.
func modeChoices() []string {
	var out []string
	for _, m := range semantics.AllModes {
		out = append(out, string(m))
	}
	return append(out, "all")
}
