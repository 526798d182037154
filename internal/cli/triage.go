package cli

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/offsetctl/offsetctl/internal/change"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
)

// groupSelect is how a command is told its groups: names (arguments and
// --group), --all-groups, or -r/--regex patterns, less --exclude.
type groupSelect struct {
	all     bool
	regex   bool
	exclude []string
	named   []string // --group, Apache's spelling
}

func (s *groupSelect) flags(fl *pflag.FlagSet, allHelp string) {
	fl.BoolVar(&s.all, "all-groups", false, allHelp)
	fl.BoolVarP(&s.regex, "regex", "r", false, "GROUP arguments are RE2 expressions matched against whole group names")
	_ = fl.SetAnnotation("regex", switchArgsAnnotation, []string{"the patterns as arguments (--regex PATTERN...)"})
	fl.StringArrayVar(&s.exclude, "exclude", nil, "leave out groups whose whole name matches this RE2 expression (repeatable; with --all-groups or --regex)")
	fl.StringArrayVar(&s.named, "group", nil, "a group, as kafka-consumer-groups --group (repeatable; same as a GROUP argument)")
}

// given reports whether any group selection was made at all.
func (s groupSelect) given(args []string) bool {
	return len(args) > 0 || len(s.named) > 0 || s.all || s.regex || len(s.exclude) > 0
}

// noMatch is the message of a pattern selection that matched no group: a
// command that changes offsets stops there (exit 2, nothing changed)
// rather than succeed at doing nothing. The GROUP patterns that matched no
// group are named in this one line, not in warnings before it (bad input is
// one line); skipped and verb are as for warnUnmatched.
func (s selection) noMatch(what string, skipped []lag.KindSkipped, verb string) error {
	if s.Match == nil {
		return exitcode.Usagef("no %s in the cluster: nothing to do", what)
	}
	var why []string
	var none []string
	for _, u := range s.unmatchedPatterns(skipped) {
		if len(u.kinds) > 0 {
			why = append(why, u.kindReason(verb))
			continue
		}
		none = append(none, u.text)
	}
	switch {
	case len(none) == 1:
		why = append([]string{"GROUP pattern " + safetext.Arg(none[0]) + " matched no group"}, why...)
	case len(none) > 1:
		why = append([]string{"GROUP patterns " + safetext.ArgList(none, 5) + " matched no group"}, why...)
	}
	if len(why) == 0 {
		return exitcode.Usagef("no %s matches the --regex/--exclude selection: nothing to do", what)
	}
	return exitcode.Usagef("no %s matches the --regex/--exclude selection (%s): nothing to do", what, strings.Join(why, "; "))
}

// selection is a checked group selection: Groups by name, or All with an
// optional Match.
type selection struct {
	Groups []string
	All    bool
	Match  func(string) bool
	// unmatched, with --regex, lists the GROUP patterns that matched no
	// group Match was asked about (nil without --regex).
	unmatched func() []pattern
}

// pattern is one compiled GROUP pattern and its text (for messages, cut by
// safetext.Arg).
type pattern struct {
	text string
	re   *regexp.Regexp
}

// unmatchedPattern is a GROUP pattern that matched no group Match was
// asked about, with the groups of a skipped kind it matched.
type unmatchedPattern struct {
	pattern
	kinds []lag.KindSkipped
}

// kindReason says that u matched only groups of a kind verb skips, with
// how many of each kind.
func (u unmatchedPattern) kindReason(verb string) string {
	return fmt.Sprintf("GROUP pattern %s matched only groups of a kind %s skips: %s", safetext.Arg(u.text), verb, lag.CountKinds(u.kinds))
}

// unmatchedPatterns lists the GROUP patterns that matched no group of the
// cluster (nil without --regex). A pattern that matched only groups the
// command skips for their kind (skipped: Kafka Streams and Connect groups,
// never asked to Match) is no typo: its kinds say which.
func (s selection) unmatchedPatterns(skipped []lag.KindSkipped) []unmatchedPattern {
	if s.unmatched == nil {
		return nil
	}
	var out []unmatchedPattern
	for _, p := range s.unmatched() {
		u := unmatchedPattern{pattern: p}
		for _, k := range skipped {
			if p.re.MatchString(k.Group) {
				u.kinds = append(u.kinds, k)
			}
		}
		out = append(out, u)
	}
	return out
}

// warnUnmatched warns of each GROUP pattern that matched no group of the
// cluster: with several patterns, a mistyped one would otherwise go
// unnoticed while the others match. One that matched only groups of a kind
// the command skips is named as such; verb is the command's name for that
// line. Call it after the gather, once the command goes on: a command that
// stops for noMatch names the patterns in its error line instead.
func (a *app) warnUnmatched(s selection, skipped []lag.KindSkipped, verb string) {
	for _, u := range s.unmatchedPatterns(skipped) {
		if len(u.kinds) > 0 {
			a.warnf("%s", u.kindReason(verb))
			continue
		}
		a.warnf("GROUP pattern %s matched no group", safetext.Arg(u.text))
	}
}

// resolve checks the selection against the arguments. defaultAll makes no
// selection mean every group (the exporter); elsewhere it is bad usage.
func (s groupSelect) resolve(args []string, defaultAll bool) (selection, error) {
	names := append(append([]string(nil), args...), s.named...)
	for _, g := range names {
		if strings.TrimSpace(g) == "" {
			return selection{}, exitcode.Usagef("empty group name")
		}
	}
	if !s.regex {
		// Patterns are not names: neither checked nor echoed as names.
		if err := checkGroupArgs(names); err != nil {
			return selection{}, err
		}
	}
	exclude, err := compileWhole("--exclude", s.exclude)
	if err != nil {
		return selection{}, err
	}
	switch {
	case s.regex && s.all:
		return selection{}, exitcode.Usagef("--regex and --all-groups: use one (--regex already matches among all groups)")
	case s.regex && len(names) == 0:
		return selection{}, exitcode.Usagef("--regex needs at least one GROUP pattern")
	case s.regex:
		include, err := compileWhole("GROUP pattern", names)
		if err != nil {
			return selection{}, err
		}
		// Which patterns matched a group (excluded or not: such a
		// pattern is not a typo); Match may be called concurrently.
		seen := make([]atomic.Bool, len(include))
		match := func(g string) bool {
			hit := false
			for i, re := range include {
				if re.MatchString(g) {
					seen[i].Store(true)
					hit = true
				}
			}
			return hit && !matchAny(exclude, g)
		}
		unmatched := func() []pattern {
			var out []pattern
			for i := range seen {
				if !seen[i].Load() {
					out = append(out, pattern{text: names[i], re: include[i]})
				}
			}
			return out
		}
		return selection{All: true, Match: match, unmatched: unmatched}, nil
	case len(names) > 0 && s.all:
		return selection{}, exitcode.Usagef("%s", groupsOrAll(true))
	case len(names) > 0 && len(exclude) > 0:
		return selection{}, exitcode.Usagef("--exclude goes with --all-groups or --regex, not with named groups")
	case len(names) > 0:
		return selection{Groups: names}, nil
	case !s.all && !defaultAll:
		return selection{}, exitcode.Usagef("%s", groupsOrAll(false))
	}
	sel := selection{All: true}
	if len(exclude) > 0 {
		sel.Match = func(g string) bool { return !matchAny(exclude, g) }
	}
	return sel, nil
}

// maxPattern bounds one pattern: a group name is at most 32,767 bytes, and
// a longer expression is a mistake, not a selection.
const maxPattern = 32767

// compileWhole compiles RE2 expressions that must match a whole name, with
// '.' matching any character, a line break too (flag s): '.*' means every
// group, including one whose name has a line break. Errors name the item
// and the problem, never the expression itself.
func compileWhole(what string, exprs []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for i, e := range exprs {
		if e == "" {
			return nil, exitcode.Usagef("%s: item %d is empty", what, i+1)
		}
		if len(e) > maxPattern {
			return nil, exitcode.Usagef("%s: item %d is longer than %d bytes", what, i+1, maxPattern)
		}
		// Checked alone first: 'a)|(b' would otherwise close the anchoring
		// group and match unanchored.
		_, err := regexp.Compile(e)
		var re *regexp.Regexp
		if err == nil {
			re, err = regexp.Compile(`^(?s:` + e + `)$`)
		}
		if err != nil {
			var rerr *syntax.Error
			if errors.As(err, &rerr) {
				return nil, exitcode.Usagef("%s: item %d is not an RE2 expression: %s", what, i+1, rerr.Code)
			}
			return nil, exitcode.Usagef("%s: item %d is not an RE2 expression", what, i+1)
		}
		out = append(out, re)
	}
	return out, nil
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// triageFlags are lag's and groups' filters, roll-up and thresholds.
type triageFlags struct {
	minLag, minTimeLag string
	by                 string
	failIf             []string
}

func (f *triageFlags) flags(fl *pflag.FlagSet, withBy bool) {
	fl.StringVar(&f.minLag, "min-lag", "", "only partitions with lag ≥ `N` (groups with none are left out)")
	fl.StringVar(&f.minTimeLag, "min-time-lag", "", "only partitions whose next record is at least `D` old (implies --time-lag)")
	if withBy {
		enumVar(fl, &f.by, "by", "", "partition", "roll rows up", enum{choices: []string{string(lag.ByPartition), string(lag.ByTopic), string(lag.ByGroup)},
			parse: func(s string) error { _, err := lag.ParseLagBy(s); return err }})
	}
	fl.StringArrayVar(&f.failIf, "fail-if", nil, "exit 4 when a row or group crosses `EXPR`: lag>N, total-lag>N, time-lag>D or status>=S (repeatable; e.g. lag>10000, total-lag>1e6, time-lag>5m, status>=STOP; status implies --status)")
}

// triage is the checked form of triageFlags.
type triage struct {
	filter     lag.LagFilter
	by         lag.LagBy
	thresholds []lag.Threshold
	// statuses are the --fail-if status>=S thresholds (they imply
	// --status).
	statuses []statusThreshold
}

// needsTimeLag reports whether the report must read time lag.
func (t triage) needsTimeLag() bool {
	if t.filter.MinTimeLag != nil {
		return true
	}
	for _, th := range t.thresholds {
		if th.NeedsTimeLag() {
			return true
		}
	}
	return false
}

func (f triageFlags) parse(fl *pflag.FlagSet) (triage, error) {
	t := triage{by: lag.ByPartition}
	if changed(fl, "min-lag") {
		n, err := lag.ParseMinLag(f.minLag)
		if err != nil {
			return t, exitcode.Flag("--min-lag", err)
		}
		t.filter.MinLag = &n
	}
	if changed(fl, "min-time-lag") {
		d, err := time.ParseDuration(strings.TrimSpace(f.minTimeLag))
		if err != nil || d < 0 {
			return t, exitcode.Usagef("--min-time-lag %s: want a duration such as 90s, 5m or 1h", safetext.Arg(f.minTimeLag))
		}
		t.filter.MinTimeLag = &d
	}
	if changed(fl, "by") {
		by, err := lag.ParseLagBy(f.by)
		if err != nil {
			return t, exitcode.Flag("--by", err)
		}
		t.by = by
	}
	for _, e := range f.failIf {
		if st, ok, err := parseStatusThreshold(e); ok {
			if err != nil {
				return t, exitcode.Flag("--fail-if", err)
			}
			t.statuses = append(t.statuses, st)
			continue
		}
		th, err := lag.ParseThreshold(e)
		if err != nil {
			return t, exitcode.Flag("--fail-if", err)
		}
		t.thresholds = append(t.thresholds, th)
	}
	return t, nil
}

// thresholdError is a crossed --fail-if: exit 4, one line naming what
// crossed (shortened when many did).
func thresholdError(breaches []string) error {
	if len(breaches) == 0 {
		return nil
	}
	return &exitcode.Error{Code: exitcode.Threshold, Err: fmt.Errorf("threshold crossed by %s", textlist.Short(breaches, 3, "; "))}
}

// reportOutcome is a report's exit: 1 for any error line (a partial
// failure outranks a crossed threshold: the check was not made whole),
// else 4 for a crossed --fail-if threshold. With both, the threshold line
// is still said, before the error line: the groups that crossed are known.
func (a *app) reportOutcome(errs, breaches []string) error {
	err := change.ReportErrors(errs)
	if err == nil {
		return thresholdError(breaches)
	}
	a.sayThreshold(breaches)
	return err
}

// sayThreshold writes the line of a crossed threshold that the exit code
// (1) does not carry; nothing when none crossed.
func (a *app) sayThreshold(breaches []string) {
	if th := thresholdError(breaches); th != nil {
		fmt.Fprintln(a.stderr, stderrLine(th))
	}
}
