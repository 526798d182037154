// Package topicname is offsetctl's one check of Kafka's topic-name rules
// (the broker's org.apache.kafka.common.internals.Topic.validate): 1 to
// 249 characters of [a-zA-Z0-9._-], and neither "." nor "..". A name that
// breaks them can name no topic, so it is bad input before any request.
package topicname

import (
	"fmt"
	"unicode/utf8"
)

// MaxLen is Kafka's longest topic name.
const MaxLen = 249

// Problem is the rule a name breaks.
type Problem int

const (
	Empty       Problem = iota + 1 // ""
	Dots                           // "." or ".."
	IllegalChar                    // a character outside [a-zA-Z0-9._-]
	TooLong                        // more than MaxLen characters
)

// Error is a name Kafka refuses: the first rule it breaks (in the order
// of the constants), and for IllegalChar the first such character.
type Error struct {
	Problem Problem
	Name    string
	Char    rune
}

func (e *Error) Error() string {
	switch e.Problem {
	case Empty:
		return "empty topic name"
	case Dots:
		return fmt.Sprintf("topic name cannot be %q", e.Name)
	case IllegalChar:
		return fmt.Sprintf("topic name has illegal character %q", e.Char)
	}
	return fmt.Sprintf("topic name longer than %d characters", MaxLen)
}

// Check returns nil for a legal topic name, else an *Error.
func Check(name string) error {
	switch {
	case name == "":
		return &Error{Problem: Empty, Name: name}
	case name == "." || name == "..":
		return &Error{Problem: Dots, Name: name}
	}
	if i := IllegalIndex(name); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return &Error{Problem: IllegalChar, Name: name, Char: r}
	}
	if len(name) > MaxLen {
		return &Error{Problem: TooLong, Name: name}
	}
	return nil
}

// IllegalIndex returns the byte index of the first character Kafka does
// not allow in a topic name, or -1 (for a prefix, which may be checked
// before it is a whole name).
func IllegalIndex(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			continue
		}
		return i
	}
	return -1
}
