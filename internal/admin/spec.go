package admin

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TargetKind is what a reset moves offsets to.
type TargetKind int

// The reset targets.
const (
	ToEarliest TargetKind = iota + 1
	ToLatest
	ToCurrent
	ToOffset
	ToShift
	ToTime
	ToFile
	ToGroup
	// ToTranslated is MirrorMaker 2's translation of the group's offsets
	// on the source cluster Alias (its checkpoints topic on this cluster):
	// the caller reads them into File, as group,topic,partition,offset
	// rows, and the plan treats them like a plan file's.
	ToTranslated
)

// Target is a parsed --to SPEC.
type Target struct {
	Kind   TargetKind
	Offset int64  // ToOffset
	Shift  int64  // ToShift
	Millis int64  // ToTime: unix milliseconds (ago: already resolved against now)
	Path   string // ToFile
	Group  string // ToGroup
	Alias  string // ToTranslated: the MM2 source cluster alias
	// Spec is the text as given, for messages.
	Spec string
}

// NeedsScope reports whether the target needs --topic or --all-topics
// (a file plan names its own partitions).
func (t Target) NeedsScope() bool { return !t.FromRows() }

// FromRows reports whether the target's offsets are rows the caller loads
// into ResetInput.File (a plan file, MM2's translations); they name their
// own partitions, and --topic narrows them.
func (t Target) FromRows() bool { return t.Kind == ToFile || t.Kind == ToTranslated }

// ParseTarget parses a --to SPEC: earliest, latest, current, N, shift:±N,
// time:TIME (see ParseTime), ago:DURATION (see ParseDuration; now minus the
// duration, an error before 1970 as for time:), file:PATH, group:NAME, translated:ALIAS. now resolves ago:
// targets.
func ParseTarget(spec string, now time.Time) (Target, error) {
	s := strings.TrimSpace(spec)
	t := Target{Spec: s}
	kind, arg, hasArg := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "earliest", "latest", "current":
		if hasArg {
			return t, fmt.Errorf("%q: %s takes no argument", spec, kind)
		}
		t.Kind = map[string]TargetKind{"earliest": ToEarliest, "latest": ToLatest, "current": ToCurrent}[strings.ToLower(kind)]
		return t, nil
	case "shift":
		n, err := ParseShift(arg)
		if err != nil {
			return t, fmt.Errorf("%q: %w", spec, err)
		}
		t.Kind, t.Shift = ToShift, n
		return t, nil
	case "time":
		ms, err := ParseTime(arg)
		if err != nil {
			return t, fmt.Errorf("%q: %w", spec, err)
		}
		t.Kind, t.Millis = ToTime, ms
		return t, nil
	case "ago":
		d, err := ParseDuration(arg)
		if err != nil {
			return t, fmt.Errorf("%q: %w", spec, err)
		}
		// Refused before 1970 as time: refuses it: ListOffsets reads a
		// negative timestamp as latest/earliest/max-timestamp (-1/-2/-3),
		// and clamping to 1970 instead turned a mistyped duration into a
		// silent rewind of every partition to its log start.
		ms := now.Add(-d).UnixMilli()
		if ms < 0 {
			return t, fmt.Errorf("%q: now minus the duration is before 1970-01-01T00:00:00Z; to start at the log start use earliest", spec)
		}
		t.Kind, t.Millis = ToTime, ms
		return t, nil
	case "file":
		if strings.TrimSpace(arg) == "" {
			return t, fmt.Errorf("%q: file: needs a path", spec)
		}
		t.Kind, t.Path = ToFile, arg
		return t, nil
	case "translated":
		if err := CheckAlias(arg); err != nil {
			return t, fmt.Errorf("%q: translated: %w", spec, err)
		}
		t.Kind, t.Alias, t.Path = ToTranslated, arg, s
		return t, nil
	case "group":
		if arg == "" {
			return t, fmt.Errorf("%q: group: needs a group name", spec)
		}
		t.Kind, t.Group = ToGroup, arg
		return t, nil
	}
	if !hasArg {
		if n, err := ParseOffset(s); err == nil {
			t.Kind, t.Offset = ToOffset, n
			return t, nil
		} else if s != "" && (s[0] == '-' || s[0] == '+' || s[0] >= '0' && s[0] <= '9') {
			return t, fmt.Errorf("%q: %w", spec, err)
		}
	}
	return t, fmt.Errorf("%q: want %s", spec, TargetForms)
}

// TargetForms names every form of a target, for the lines that list them:
// a target ParseTarget refuses, and none given (reset without --to).
const TargetForms = "earliest, latest, current, an offset N, shift:+N, shift:-N, time:TIME, ago:DURATION, file:PLAN.csv, group:NAME or translated:ALIAS"

// CheckAlias validates a MirrorMaker 2 cluster alias: it becomes part of
// a topic name (ALIAS.checkpoints.internal).
func CheckAlias(alias string) error {
	if alias == "" {
		return fmt.Errorf("needs the MirrorMaker 2 source cluster alias")
	}
	if len(alias) > 200 {
		return fmt.Errorf("cluster alias is %d bytes long: topic names stop at 249", len(alias))
	}
	for _, r := range alias {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("cluster alias has a character a topic name cannot have (letters, digits, '.', '_', '-')")
		}
	}
	return nil
}

// ParseOffset parses an exact, non-negative offset.
func ParseOffset(s string) (int64, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("offset %q is not an integer", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("offset %d is negative", n)
	}
	return n, nil
}

// ParseShift parses a signed shift: +N, -N or N.
func ParseShift(s string) (int64, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil || strings.HasPrefix(s, "+-") || strings.HasPrefix(s, "++") || s == "" {
		return 0, fmt.Errorf("shift %q is not a signed integer like +10 or -10", s)
	}
	return n, nil
}

// timeForms is the accepted time syntax, for error messages.
const timeForms = "want RFC 3339 (2026-11-30T10:00:00Z), YYYY-MM-DD[THH:MM[:SS[.sss]]] (UTC unless a zone follows) or unix milliseconds"

// ParseTime parses a point in time to unix milliseconds. It is pure (no
// clock, no location but UTC) and accepts:
//
//   - unix milliseconds: 1764496800000
//   - RFC 3339, with or without fractional seconds: 2026-11-30T10:00:00Z,
//     2026-11-30T10:00:00.250+02:00
//   - Apache's --to-datetime form YYYY-MM-DDTHH:mm:SS.sss, and the same
//     without fractional seconds or without seconds (YYYY-MM-DDTHH:MM):
//     UTC when no zone follows; zones Z, ±hh:mm, ±hhmm, ±hh
//   - a date alone, YYYY-MM-DD: its midnight UTC
//
// Times before 1970-01-01T00:00:00Z are an error (Kafka's ListOffsets
// reads negative times as "latest"/"earliest"), and so is a bare number
// below 100000000000 (1973-03-03): a compact date or unix seconds typed by
// mistake, which would otherwise rewind to the log start.
func ParseTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty time")
	}
	if isDigits(s) {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("time %q: unix milliseconds out of range", s)
		}
		// 20261130 (a compact date) or 1764470400 (unix seconds) would
		// otherwise be read as a few days or weeks after 1970 and rewind
		// every partition to its log start.
		if ms < minUnixMillis {
			return 0, fmt.Errorf("time %q: as unix milliseconds that is before 1973; give 13-digit unix milliseconds or a date like 2026-11-30T10:00:00Z", s)
		}
		return ms, nil
	}
	date, clock, hasClock := strings.Cut(s, "T")
	if !hasClock {
		tm, err := time.ParseInLocation("2006-01-02", date, time.UTC)
		if err != nil {
			return 0, fmt.Errorf("time %q: %s", s, timeForms)
		}
		return notBefore1970(s, tm.UnixMilli())
	}
	// Split off the zone: Z, or the last + or - in the clock part.
	zone := ""
	switch {
	case strings.HasSuffix(clock, "Z") || strings.HasSuffix(clock, "z"):
		zone = "Z"
		clock = clock[:len(clock)-1]
	default:
		if i := strings.LastIndexAny(clock, "+-"); i >= 0 {
			zone, clock = clock[i:], clock[:i]
		}
	}
	offset := 0
	if zone != "" && zone != "Z" {
		z, err := parseZone(zone)
		if err != nil {
			return 0, fmt.Errorf("time %q: %w", s, err)
		}
		offset = z
	}
	var layout string
	switch {
	case strings.Contains(clock, "."):
		layout = "2006-01-02T15:04:05.999999999"
	case strings.Count(clock, ":") == 2:
		layout = "2006-01-02T15:04:05"
	case strings.Count(clock, ":") == 1:
		layout = "2006-01-02T15:04"
	default:
		return 0, fmt.Errorf("time %q: want HH:MM or HH:MM:SS after T", s)
	}
	tm, err := time.ParseInLocation(layout, date+"T"+clock, time.UTC)
	if err != nil {
		return 0, fmt.Errorf("time %q: %s", s, timeForms)
	}
	return notBefore1970(s, tm.Add(-time.Duration(offset)*time.Second).UnixMilli())
}

func notBefore1970(s string, ms int64) (int64, error) {
	if ms < 0 {
		return 0, fmt.Errorf("time %q is before 1970-01-01T00:00:00Z", s)
	}
	return ms, nil
}

// parseZone parses ±hh, ±hhmm or ±hh:mm to seconds east of UTC.
func parseZone(z string) (int, error) {
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	d := strings.ReplaceAll(z[1:], ":", "")
	// The colon form is exactly ±hh:mm: "+1230:" and "+:1230" are typos,
	// not 12:30.
	if !isDigits(d) || (len(d) != 2 && len(d) != 4) || (strings.Contains(z, ":") && (len(z) != 6 || z[3] != ':')) {
		return 0, fmt.Errorf("bad zone %q", z)
	}
	h, _ := strconv.Atoi(d[:2])
	m := 0
	if len(d) == 4 {
		m, _ = strconv.Atoi(d[2:])
	}
	if h > 18 || m > 59 {
		return 0, fmt.Errorf("bad zone %q", z)
	}
	return sign * (h*3600 + m*60), nil
}

// minUnixMillis is the smallest number ParseTime takes as unix milliseconds.
const minUnixMillis = 100_000_000_000

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ParseDuration parses a non-negative duration. It is pure and accepts:
//
//   - a Go duration: 90m, 1h30m, 1.5h, 500ms
//   - whole days first, then optionally a Go duration: 3d, 1d12h, 2d30m
//   - ISO-8601 as Java's Duration.parse accepts it (days, hours, minutes,
//     seconds; case-insensitive): PT90M, P1D, P1DT2H, PT0.5S
//
// A negative duration (-90m, -PT1H, -3d) is an error; zero is allowed
// (callers wanting a positive duration check that themselves).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var d time.Duration
	var err error
	if u := strings.ToUpper(s); strings.HasPrefix(u, "P") || strings.HasPrefix(u, "-P") || strings.HasPrefix(u, "+P") {
		d, err = parseISODuration(u)
	} else if days, rest, ok := cutDays(s); ok {
		d, err = parseDays(s, days, rest)
	} else {
		d, err = time.ParseDuration(s)
		if err != nil {
			err = fmt.Errorf("duration %q: %s", s, durationForms)
		}
	}
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}

// durationForms is the accepted duration syntax, for error messages.
const durationForms = "want a Go duration (90m, 1h30m), days (3d, 1d12h) or ISO-8601 (PT90M, P1DT2H)"

// cutDays splits "[±]NdREST" into "[±]N" and REST.
func cutDays(s string) (days, rest string, ok bool) {
	i := strings.IndexByte(s, 'd')
	if i <= 0 {
		return "", "", false
	}
	n := strings.TrimLeft(s[:i], "+-")
	if len(s[:i])-len(n) > 1 || !isDigits(n) {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// parseDays is [±]N days plus the Go duration rest (unsigned, possibly
// empty), the sign applying to the whole.
func parseDays(s, days, rest string) (time.Duration, error) {
	neg := strings.HasPrefix(days, "-")
	n, err := strconv.ParseInt(strings.TrimLeft(days, "+-"), 10, 64)
	const day = 24 * time.Hour
	if err != nil || n > math.MaxInt64/int64(day) {
		return 0, fmt.Errorf("duration %q is too long", s)
	}
	d := time.Duration(n) * day
	if rest != "" {
		if rest[0] < '0' || rest[0] > '9' {
			return 0, fmt.Errorf("duration %q: %s", s, durationForms)
		}
		r, err := time.ParseDuration(rest)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %s", s, durationForms)
		}
		if d+r < d {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		d += r
	}
	if neg {
		d = -d
	}
	return d, nil
}

// parseISODuration parses [±]PnDTnHnMn.nS (upper-cased).
func parseISODuration(s string) (time.Duration, error) {
	orig := s
	bad := func() (time.Duration, error) {
		return 0, fmt.Errorf("duration %q: want ISO-8601 like PT90M, P1DT2H or PT0.5S (days, hours, minutes, seconds)", orig)
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	s = s[1:] // P
	datePart, timePart, hasT := strings.Cut(s, "T")
	if (datePart == "" && !hasT) || (hasT && timePart == "") {
		return bad() // "P", "PT" and, as in java.time.Duration, "P1DT"
	}
	var total float64 // seconds
	units := func(part string, allowed map[byte]float64, order string) bool {
		last := -1
		for part != "" {
			i := strings.IndexAny(part, "DHMS")
			if i <= 0 {
				return false
			}
			mult, ok := allowed[part[i]]
			pos := strings.IndexByte(order, part[i])
			if !ok || pos <= last {
				return false
			}
			last = pos
			num := part[:i]
			if !isDigits(strings.Replace(num, ".", "", 1)) || strings.HasPrefix(num, ".") || strings.HasSuffix(num, ".") {
				return false
			}
			if strings.Contains(num, ".") && part[i] != 'S' {
				return false
			}
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return false
			}
			total += v * mult
			part = part[i+1:]
		}
		return true
	}
	if !units(datePart, map[byte]float64{'D': 86400}, "D") {
		return bad()
	}
	if hasT && !units(timePart, map[byte]float64{'H': 3600, 'M': 60, 'S': 1}, "HMS") {
		return bad()
	}
	// float64(MaxInt64)/1e9 is 2^63 ns in seconds: a total of exactly that
	// converts to 2^63 ns, one past the largest Duration (it wrapped to a
	// negative one), so it is too long as well.
	if total >= float64(math.MaxInt64)/1e9 {
		return 0, fmt.Errorf("duration %q is too long", orig)
	}
	d := time.Duration(total * 1e9)
	if neg {
		d = -d
	}
	return d, nil
}

// FormatTime writes a time for messages: RFC 3339 in UTC, with exactly
// three fraction digits when it has milliseconds (…:42.140Z, not
// RFC3339Nano's …:42.14Z) and none when it has not.
func FormatTime(t time.Time) string {
	t = t.UTC().Truncate(time.Millisecond)
	if t.Nanosecond() == 0 {
		return t.Format(time.RFC3339)
	}
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}
