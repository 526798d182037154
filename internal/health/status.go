package health

import (
	"fmt"
	"strings"

	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Status is a partition's or a group's health. The order is severity:
// a group's status is its worst partition's, and --fail-if status>=X
// crosses at X and above. STOP is the worst: the consumer is gone, while a
// STALL or REWIND consumer is at least alive and committing.
type Status int

// The statuses, least severe first.
const (
	OK Status = iota
	WARN
	REWIND
	STALL
	STOP
)

var statusNames = [...]string{"OK", "WARN", "REWIND", "STALL", "STOP"}

// Statuses lists every status, least severe first (the exporter writes
// one series per status).
func Statuses() []Status { return []Status{OK, WARN, REWIND, STALL, STOP} }

func (s Status) String() string {
	if s < OK || s > STOP {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText makes a status its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseStatus reads a status name, case-insensitively. Burrow's ERR is
// not one: say STOP or STALL.
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Status(i), nil
		}
	}
	return OK, fmt.Errorf("%s is not a status: want one of %s", safetext.Arg(strings.TrimSpace(s)), strings.Join(statusNames[:], ", "))
}
