package audit

import (
	"strings"
)

// Redacted replaces a secret in a logged command line.
const Redacted = "[REDACTED]"

// secretFlag reports whether a flag's value is a secret itself (not the
// name of a file holding one): --sasl-password is refused by offsetctl,
// but a refused command line must not reach the log either.
func secretFlag(name string) bool {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	if strings.HasSuffix(name, "-file") || strings.HasSuffix(name, "-env") {
		return false
	}
	for _, w := range []string{"password", "secret", "token", "jaas"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// RedactArgs returns a copy of args with the value of every secret flag
// (--sasl-password X, --sasl-password=X) and every occurrence of a known
// secret (the resolved password, token or key, wherever it was typed)
// replaced by Redacted.
func RedactArgs(args []string, secrets []string) []string {
	out := make([]string, len(args))
	redactNext := false
	for i, a := range args {
		switch {
		case redactNext:
			a = Redacted
			redactNext = false
		case strings.HasPrefix(a, "-") && a != "--":
			name, _, hasValue := strings.Cut(a, "=")
			if secretFlag(name) {
				if hasValue {
					a = name + "=" + Redacted
				} else {
					redactNext = true
				}
			}
		}
		out[i] = RedactString(a, secrets)
	}
	return out
}

// RedactString replaces every occurrence of a secret in s by Redacted
// (secrets shorter than 3 bytes are ignored: they would blank out noise).
func RedactString(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 3 && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
