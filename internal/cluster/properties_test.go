package cluster

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"equals", "a=b\n", map[string]string{"a": "b"}},
		{"colon", "a: b", map[string]string{"a": "b"}},
		{"space", "a b c", map[string]string{"a": "b c"}},
		{"space then equals", "a   =   b", map[string]string{"a": "b"}},
		{"tab then colon", "a\t:\tb", map[string]string{"a": "b"}},
		{"empty value", "a=\nb", map[string]string{"a": "", "b": ""}},
		{"value keeps trailing blanks", "a=b  ", map[string]string{"a": "b  "}},
		{"value keeps later separators", "a=b=c:d", map[string]string{"a": "b=c:d"}},
		{"comments", "# x=y\n! z=w\n  # indented\na=1", map[string]string{"a": "1"}},
		{"hash inside value", "a=b#c", map[string]string{"a": "b#c"}},
		{"blank lines", "\n\n  \n\ta=1\n\n", map[string]string{"a": "1"}},
		{"continuation", "a=one \\\n    two \\\n\tthree", map[string]string{"a": "one two three"}},
		{"continued line starting with hash is not a comment", "a=x\\\n#y", map[string]string{"a": "x#y"}},
		{"even backslashes do not continue", "a=x\\\\\nb=y", map[string]string{"a": `x\`, "b": "y"}},
		{"dangling continuation at EOF", "a=x\\", map[string]string{"a": "x"}},
		{"escaped separator in key", `a\=b\:c\ d=e`, map[string]string{"a=b:c d": "e"}},
		{"escapes", `a=\t\n\r\f\\\q`, map[string]string{"a": "\t\n\r\f\\q"}},
		{"unicode escape", `a=\u00e9\u0041`, map[string]string{"a": "éA"}},
		{"surrogate pair", `a=\ud83d\ude00`, map[string]string{"a": "😀"}},
		{"CRLF and CR", "a=1\r\nb=2\rc=3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"duplicate: last wins", "a=1\na=2", map[string]string{"a": "2"}},
		{"key only", "lonely", map[string]string{"lonely": ""}},
		{"utf8 passes through", "a=日本", map[string]string{"a": "日本"}},
		{"jaas with quotes", `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="p=w:d";`,
			map[string]string{"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="p=w:d";`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProperties(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Map(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePropertiesLineNumbers(t *testing.T) {
	p, err := ParseProperties(strings.NewReader("# c\na=1\\\n 2\n\nb=3"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, e := range p.Entries {
		lines = append(lines, e.Line)
	}
	if !reflect.DeepEqual(lines, []int{2, 5}) {
		t.Fatalf("lines %v, want [2 5]", lines)
	}
	if v, ok := p.Get("b"); !ok || v != "3" {
		t.Fatalf("Get(b) = %q, %v", v, ok)
	}
	if _, ok := p.Get("zzz"); ok {
		t.Fatal("Get of a missing key says it is set")
	}
}

func TestParsePropertiesErrorsNeverEchoValues(t *testing.T) {
	const secret = "s3cr3t-value"
	for _, in := range []string{
		"password=" + secret + `\u12`,
		"password=" + secret + `\uZZZZ`,
		"x\\u12=" + secret,
	} {
		_, err := ParseProperties(strings.NewReader("ok=1\n" + in))
		if err == nil {
			t.Fatalf("%q: no error", in)
		}
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error echoes the value: %v", err)
		}
		if !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Fatalf("error does not name the line: %v", err)
		}
	}
}

func TestParsePropertiesTooLarge(t *testing.T) {
	_, err := ParseProperties(strings.NewReader(strings.Repeat("a", maxPropertiesSize+10)))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}

func serializeProperties(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", EscapeProperty(k, true), EscapeProperty(m[k], false))
	}
	return b.String()
}

// FuzzParseProperties: never panics, errors never echo a value that
// contains a marker, and whatever parses survives a write/read round trip.
func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{
		"a=b", "a: b", "a b", "# c\n! d\n", "a=1\\\n  2", `k\ey=\u0041\t`, "a=\\", "\r\n\r",
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";",
		"ssl.truststore.certificates=-----BEGIN CERTIFICATE----- \\\n  MIIB \\\n  -----END CERTIFICATE-----",
		`a=\ud83d\ude00`, `a=\ud83d`, "=", ":", " = ", "\\", "a\\\n", "\x00=\xff",
		"S3cr3tP4ss-ZQX\n", "bootstrap.servers=k:9092\nS3cr3tP4ss-ZQX=\n", "sasl.S3cr3t=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParseProperties(strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		m := p.Map()
		again, err := ParseProperties(strings.NewReader(serializeProperties(m)))
		if err != nil {
			t.Fatalf("re-parsing our own serialization: %v", err)
		}
		if got := again.Map(); !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip changed the properties:\n got %q\nwant %q", got, m)
		}
		// The security mapping must not panic either, whatever the keys,
		// and names no key that is not plausibly a setting's name: it
		// may be a secret (marked ZQX, which no fixed text holds).
		_, notes, err := FromProperties(p)
		said := strings.Join(notes, "\n")
		if err != nil {
			said += "\n" + err.Error()
		}
		for _, e := range p.Entries {
			if strings.Contains(e.Key, "ZQX") && !plausibleKey(e.Key) && strings.Contains(said, "ZQX") {
				t.Fatalf("key %q (line %d) echoed: %s", e.Key, e.Line, said)
			}
		}
	})
}

func TestEscapePropertyRoundTrip(t *testing.T) {
	m := map[string]string{
		" lead key": " lead value",
		"k=e:y#!":   "v=a:l#!\\",
		"tab\tkey":  "line\nbreak\rcr\fff",
		"":          "empty key",
		"é":         "日本",
	}
	p, err := ParseProperties(strings.NewReader(serializeProperties(m)))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Map(); !reflect.DeepEqual(got, m) {
		t.Fatalf("got %q, want %q", got, m)
	}
}
