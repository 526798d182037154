package cli

import (
	"errors"
	"fmt"
	"strconv"
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

// unwrapEnumError returns the error an enum flag made, or err; a value
// pflag itself could not parse (a duration, a number, a bool) is named by
// its flag and kind, never echoed: pflag's own message quotes the whole
// argument, twice for a duration (its cause, time.ParseDuration's error,
// quotes it again).
func unwrapEnumError(err error) error {
	var ee *enumError
	if errors.As(err, &ee) {
		return ee.err
	}
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	name := "--" + ive.GetFlag().Name
	if ive.GetFlag().Value.Type() == "bool" {
		return switchError(ive.GetFlag())
	}
	want, ok := flagKind(ive.GetFlag().Value.Type())
	if !ok {
		// A flag type of offsetctl's own: its Set says what is wrong.
		return fmt.Errorf("%s: %w", name, errors.Unwrap(ive))
	}
	if errors.Is(ive, strconv.ErrRange) {
		return fmt.Errorf("%s: out of range: want %s", name, want)
	}
	return fmt.Errorf("%s: want %s", name, want)
}

// switchArgsAnnotation marks a switch whose values are the command's
// arguments (-r/--regex: the GROUP arguments are patterns): its text says
// where they go instead, as "the patterns as arguments (--regex PATTERN...)".
const switchArgsAnnotation = "offsetctl/switch-args"

// switchError is the line for a switch given a value other than true or
// false (--regex='orders-.*'): the value is taken for the switch's own,
// so the line says the flag is a switch, and where a switch's values go
// (the value is not echoed).
func switchError(f *pflag.Flag) error {
	name := "--" + f.Name
	if args := f.Annotations[switchArgsAnnotation]; len(args) > 0 {
		return fmt.Errorf("%s is a switch: give %s", name, args[0])
	}
	return fmt.Errorf("%s is a switch: give it alone (%s), or %s=true or %s=false", name, name, name, name)
}

// flagKind says what a value of pflag's type t takes; false for a type
// of offsetctl's own.
func flagKind(t string) (string, bool) {
	switch t {
	case "duration":
		return "a duration: a number and a unit (500ms, 30s, 5m, 1h)", true
	case "int", "int8", "int16", "int32", "int64", "count":
		return "a whole number", true
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number of 0 or more", true
	case "float32", "float64":
		return "a number", true
	}
	return "", false
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
