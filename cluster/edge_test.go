package cluster

import (
	"strings"
	"testing"
)

// -b a:1,,b:2: an empty entry in the middle (a doubled comma) is skipped,
// and every broker after it is kept.
func TestParseBrokersEmptyEntryInTheMiddle(t *testing.T) {
	for in, want := range map[string]string{
		"a:1,,b:2":              "a:1 b:2",
		"a:1, ,b:2,,c:3":        "a:1 b:2 c:3",
		",a:1":                  "a:1",
		"a:1,":                  "a:1",
		"a:1,,PLAINTEXT://b:2,": "a:1 b:2",
	} {
		got, err := ParseBrokers(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ParseBrokers(%q) = %q, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseBrokers("a:1,,b"); err == nil || !strings.Contains(err.Error(), `"b" is not host:port`) {
		t.Errorf("a bad entry after an empty one: %v", err)
	}
	for _, in := range []string{"", ",", " , ,"} {
		if _, err := ParseBrokers(in); err == nil || err.Error() != "no broker address given" {
			t.Errorf("ParseBrokers(%q): %v", in, err)
		}
	}
}
