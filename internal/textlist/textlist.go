// Package textlist shortens lists for one-line messages.
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
