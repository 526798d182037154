// Package textlist shortens lists and counts things for one-line messages.
package textlist

import (
	"fmt"
	"strings"
)

// Short joins the first max items with sep and counts the rest:
// "a, b, c and 4 more".
func Short(items []string, max int, sep string) string {
	if len(items) > max {
		return strings.Join(items[:max], sep) + fmt.Sprintf(" and %d more", len(items)-max)
	}
	return strings.Join(items, sep)
}

// Count says n of a thing with a regular plural: "1 event", "3 events",
// "0 members".
func Count[N ~int | ~int32 | ~int64](n N, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
