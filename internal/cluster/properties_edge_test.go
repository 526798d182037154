package cluster

import (
	"fmt"
	"strings"
	"testing"
)

// Edges of the properties reader that its table test does not reach, each
// written as the bug it would be.
func TestParsePropertiesEdges(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		// Old Mac line ends (\r alone), in the middle and at the end.
		{"lone CR between lines", "a=1\rb=2\rc=3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"lone CR at the end", "a=1\r", map[string]string{"a": "1"}},
		{"CR LF", "a=1\r\nb=2\r\n", map[string]string{"a": "1", "b": "2"}},
		// A line that is only a backslash continues onto the next.
		{"backslash-only line continues", "\\\nkey=v", map[string]string{"key": "v"}},
		{"three backslashes continue", "a=x\\\\\\\nb", map[string]string{"a": `x\b`}},
		// Surrogate pairs at the ends of both ranges, and at the very end
		// of the value.
		{"pair U+10000", `a=\uD800\uDC00`, map[string]string{"a": "\U00010000"}},
		{"pair U+10FFFF", `a=\uDBFF\uDFFF`, map[string]string{"a": "\U0010FFFF"}},
		{"pair then text", `a=\uD83D\uDE00!`, map[string]string{"a": "😀!"}},
		{"high then not a low surrogate", `a=\uD83D\u0041`, map[string]string{"a": "\uFFFDA"}},
		{"high then a high surrogate", `a=\uDBFF\uDBFF`, map[string]string{"a": "\uFFFD\uFFFD"}},
		{"high then past the low range", `a=\uD800\uE000`, map[string]string{"a": "\uFFFD\uE000"}},
		{"low surrogate alone", `a=\uDC00x`, map[string]string{"a": "\uFFFDx"}},
		{"two low surrogates", `a=\uDC00\uDC00`, map[string]string{"a": "\uFFFD\uFFFD"}},
		{"high surrogate then a short escape", `a=\uD83Dxx\u00e9`, map[string]string{"a": "\uFFFDxxé"}},
	}
	for _, tc := range tests {
		p, err := ParseProperties(strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := p.Map()
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s=%q, want %q", tc.name, k, got[k], v)
			}
		}
	}
	// A bad hex digit in the low half of a pair is an error, not a
	// half-decoded character.
	if _, err := ParseProperties(strings.NewReader(`a=\uD83D\uDE0G`)); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("bad low surrogate digit: %v", err)
	}
}

// Get finds a key in any entry, the first included, and the last of
// duplicates wins.
func TestPropertiesGet(t *testing.T) {
	p, err := ParseProperties(strings.NewReader("first=1\nmid=2\nfirst=3\nlast=4\n"))
	if err != nil {
		t.Fatal(err)
	}
	only, _ := ParseProperties(strings.NewReader("solo=x"))
	for _, c := range []struct {
		p       Properties
		key, v  string
		present bool
	}{
		{p, "first", "3", true}, {p, "mid", "2", true}, {p, "last", "4", true}, {p, "none", "", false}, {only, "solo", "x", true},
	} {
		if v, ok := c.p.Get(c.key); v != c.v || ok != c.present {
			t.Errorf("Get(%s) = %q, %v", c.key, v, ok)
		}
	}
}

// A file of exactly the size limit is read, whole, even as one line; one
// byte more is refused.
func TestParsePropertiesAtTheSizeLimit(t *testing.T) {
	line := "k=" + strings.Repeat("v", maxPropertiesSize-2)
	p, err := ParseProperties(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.Get("k"); !ok || len(v) != maxPropertiesSize-2 {
		t.Fatalf("a one-line file of %d bytes: value of %d bytes", maxPropertiesSize, len(v))
	}
	if _, err := ParseProperties(strings.NewReader(line + "v")); err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Fatalf("one byte over: %v", err)
	}
}

// Error messages shorten a huge key to 80 bytes and "...", and keep a key
// of 80 bytes whole.
func TestQuoteKey(t *testing.T) {
	k80 := strings.Repeat("k", 80)
	if got := quoteKey(k80); got != `"`+k80+`"` {
		t.Errorf("80 bytes: %s", got)
	}
	if got := quoteKey(k80 + "z"); got != `"`+k80+`..."` {
		t.Errorf("81 bytes: %s", got)
	}
}

// sasl.* keys under a non-SASL protocol, or none, are refused: Java drops
// them without a word, and the operator who wrote them meant SASL.
func TestFromPropertiesSASLKeysWithoutSASL(t *testing.T) {
	for in, want := range map[string]string{
		"sasl.mechanism=PLAIN\nbootstrap.servers=k:1\n":                           "sasl.mechanism is set but security.protocol is unset (PLAINTEXT): SASL would not be used; set security.protocol=SASL_SSL (or SASL_PLAINTEXT)",
		"security.protocol=PLAINTEXT\nsasl.jaas.config=x\nsasl.mechanism=PLAIN\n": "sasl.jaas.config, sasl.mechanism are set but security.protocol is PLAINTEXT: SASL would not be used",
	} {
		if _, _, err := FromProperties(props(t, in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// A keystore file and an inline key or chain exclude each other, whichever
// of the two inline parts is given.
func TestFromPropertiesKeystoreFileAndInline(t *testing.T) {
	for _, inline := range []string{"ssl.keystore.key=K", "ssl.keystore.certificate.chain=C", "ssl.keystore.key=K\nssl.keystore.certificate.chain=C"} {
		p, err := ParseProperties(strings.NewReader("ssl.keystore.type=PEM\nssl.keystore.location=/k.pem\n" + inline))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := FromProperties(p); err == nil || err.Error() != "set either ssl.keystore.location or ssl.keystore.certificate.chain + ssl.keystore.key, not both" {
			t.Errorf("%q: %v", inline, err)
		}
	}
}

// JAAS lines that end too early, or put the wrong token where an option
// goes, are errors naming what is missing; none may panic.
func TestParseJAASMalformed(t *testing.T) {
	const m = "org.apache.kafka.common.security.plain.PlainLoginModule"
	for in, want := range map[string]string{
		m + " required":                    "missing ';' at the end",
		m + ` required "x"="y";`:           "expected an option name",
		m + " required =y;":                "expected an option name",
		m + " required user;":              "option 1 (the first) has no `=value`",
		m + " required user=":              "option 1 (the first) has no `=value`",
		m + " required user":               "option 1 (the first) has no `=value`",
		m + ` required user "=" "v";`:      "option 1 (the first) has no `=value`",
		m + " required user x y;":          "option 1 (the first) has no `=value`",
		m + ` required user="x\`:           "",
		m + ` required user="a\"b" p="c";`: "-",
		// A word with no =value may be a secret whose key was lost, and
		// one glued to a closing quote part of a mistyped secret: an
		// option is named by its place, never its text; a glued option
		// that is complete is read, as Kafka's own parser does.
		m + ` required username="u" S3cr3tP4ss;`: "option 2 (the one after \"username\") has no `=value`",
		m + ` required user="u"pa"ss";`:          "option 2 (the one after \"user\") has no `=value`",
		m + ` required user="u"hunter2=;`:        "option 2 (the one after \"user\") has no value",
		m + ` required user="u"p="c";`:           "-glued",
	} {
		j, err := ParseJAAS(in)
		switch want {
		case "-":
			if err != nil || j.Options["user"] != `a"b` || j.Options["p"] != "c" {
				t.Errorf("%s: %+v, %v", in, j, err)
			}
		case "-glued":
			if err != nil || j.Options["user"] != "u" || j.Options["p"] != "c" {
				t.Errorf("%s: %+v, %v", in, j, err)
			}
		case "":
			if err == nil {
				t.Errorf("%s: accepted %+v", in, j)
			}
		default:
			if err == nil || err.Error() != want {
				t.Errorf("%s: %v, want %s", in, err, want)
			}
		}
	}
}

// PlainLoginModule without sasl.mechanism means PLAIN (as Java); SCRAM's
// module names no mechanism, and an explicit sasl.mechanism is kept.
func TestJAASModuleSetsMechanism(t *testing.T) {
	for in, want := range map[string]string{
		`org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`: MechPlain,
		`org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";`: "",
	} {
		p, err := ParseProperties(strings.NewReader("security.protocol=SASL_SSL\nsasl.jaas.config=" + in))
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := FromProperties(p)
		if err != nil || s.SASL.Mechanism != want || s.SASL.User != "u" {
			t.Errorf("%s: mechanism %q, user %q, %v; want %q", in, s.SASL.Mechanism, s.SASL.User, err, want)
		}
	}
	p, _ := ParseProperties(strings.NewReader("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";"))
	if s, _, err := FromProperties(p); err != nil || s.SASL.Mechanism == MechPlain || s.SASL.Mechanism == "" {
		t.Errorf("explicit mechanism: %q, %v", s.SASL.Mechanism, err)
	}
}

// A key that is not named like a client setting may be a secret (a
// password file passed as --command-config parses as one key): notes and
// errors refer to it by its line, never by its text.
func TestFromPropertiesNeverEchoesImplausibleKeys(t *testing.T) {
	const secret = "S3cr3tP4ss-ZQX"
	for _, tc := range []struct {
		in, note, err string
	}{
		{in: secret + "\n", err: "no line is a client setting (line 1: not named like one; not shown: a line like that may be a password): is it the client properties file?"},
		{in: "bootstrap.servers=k:9092\n" + secret + "\n", note: "ignoring line 2: not named like a client setting (not shown: a line like that may be a password)"},
		{in: "bootstrap.servers=k:9092\n" + secret + "=\n", note: "ignoring line 2: not named like a client setting (not shown: a line like that may be a password)"},
		{in: secret + " x\nlinger.ms=5\nhunter2\n", note: "ignoring client settings that do not apply to offsetctl: linger.ms|ignoring lines 1, 3: not named like a client setting (not shown: a line like that may be a password)"},
		// Plausible names are still shown.
		{in: "acks=all\nretries=3\nfoo.bar.baz=1\n", note: "ignoring client settings that do not apply to offsetctl: acks, foo.bar.baz, retries"},
		// Dotless words other than the known few, upper case, blanks: not shown.
		{in: "hunter\nLinger.ms=1\nx..y=1\nacks=1\n", note: "ignoring client settings that do not apply to offsetctl: acks|ignoring lines 1, 2, 3: not named like a client setting (not shown: a line like that may be a password)"},
		{in: "sasl." + secret + "=1\n", err: "the key on line 1 is not supported by offsetctl; remove it or use flags (see offsetctl --help)"},
		{in: "sasl.login.class=x\n", err: `"sasl.login.class" is not supported by offsetctl; remove it or use flags (see offsetctl --help)`},
	} {
		p, err := ParseProperties(strings.NewReader(tc.in))
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		_, notes, err := FromProperties(p)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(notes, "|") != tc.note {
			t.Errorf("%q: notes %q, %v; want %q", tc.in, notes, err, tc.note)
		}
		if strings.Contains(strings.Join(notes, "|"), secret) {
			t.Errorf("%q: a note echoes the secret: %q", tc.in, notes)
		}
	}
}

// A malformed escape in the value of an implausible key names the line
// (ParseProperties' prefix) and not the key.
func TestParsePropertiesBadValueOfImplausibleKey(t *testing.T) {
	for in, want := range map[string]string{
		`S3cr3tP4ss=\uZZ`: `line 1: value: malformed \uXXXX escape (needs four hex digits)`,
		`x.y=\uZZ`:        `line 1: value of x.y: malformed \uXXXX escape (needs four hex digits)`,
	} {
		if _, err := ParseProperties(strings.NewReader(in)); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// A client id lands raw in broker request logs and metric names: control
// characters and blanks at the ends are refused like a long id, without
// the value.
// TestJAASGluedOptionNeverShown: an option written right after a closing
// quote may be the rest of a value with an unescaped quote in it
// (password="pa"ss="w0rd"); when it is not supported it is counted, never
// named, while an ordinary unsupported option still is.
func TestJAASGluedOptionNeverShown(t *testing.T) {
	const scram = "org.apache.kafka.common.security.scram.ScramLoginModule"
	for in, want := range map[string]string{
		scram + ` required username="u" password="pa"ss="w0rd";`: `option(s) 1 written right after a closing quote (not shown: it may be the rest of a value with a quote in it, which must be escaped as \") of ScramLoginModule are not supported`,
		scram + ` required username="u" password="p" extra="x";`: "option(s) extra of ScramLoginModule are not supported",
	} {
		j, err := ParseJAAS(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var a SASLSettings
		err = j.apply(&a)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n%v\nwant\n%s", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "ss") && !strings.Contains(want, "extra") {
			t.Errorf("the glued option's name is shown: %v", err)
		}
	}
}

func TestCheckClientID(t *testing.T) {
	const bad = "the client id must be UTF-8 text with no control characters"
	for _, tc := range []struct{ id, want string }{
		{"", ""},
		{"ops-tool", ""},
		{"ops tool ü", ""},
		{strings.Repeat("c", 256), ""},
		{strings.Repeat("c", 257), "the client id is 257 bytes long; the limit is 256"},
		{"ev\x1b[31m\n", bad},
		{"a\nb", bad},
		{"bel\a", bad},
		{"rtl\u202e", bad},
		// Kept, as Kafka's Java clients keep them from a properties file.
		{" lead", ""},
		{"trail ", ""},
		{`"billing"`, ""},
		{"bad\xff", bad},
	} {
		err := CheckClientID(tc.id)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("CheckClientID(%q) = %v, want %q", tc.id, err, tc.want)
		}
	}
}

// TestPlausibleKey: the keys an error may show are lowercase dotted words
// (each segment a letter, then letters or digits), or acks and retries; at
// the edges of each range, and anything else, the key is not shown.
func TestPlausibleKey(t *testing.T) {
	for k, want := range map[string]bool{
		"acks": true, "retries": true, "linger.ms": true, "sasl.jaas.config": true,
		"a.z": true, "z.a": true, "a0.b9": true, "ba.bz": true, "ssl.keystore.location": true,
		strings.Repeat("a", 40) + "." + strings.Repeat("b", 39): true,  // 80 bytes
		strings.Repeat("a", 40) + "." + strings.Repeat("b", 40): false, // 81
		"hunter2": false, "S3cr3tP4ss-ZQX": false, "": false, "acks.": false, ".ms": false,
		"`a.b": false, "{a.b": false, "a.`b": false, "a.{b": false, "9a.b": false, "A.b": false,
		"a/.b": false, "a:.b": false, "a.b/": false, "a.b:": false, "a.b`": false, "a.b{": false, "a.bC": false, "a.b-c": false,
	} {
		if got := plausibleKey(k); got != want {
			t.Errorf("plausibleKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestPropertiesLeadingBOM: a byte order mark an editor put first made line
// 1 unreadable, and security.protocol=SSL on it was dropped (QA: the
// connection went out in plaintext, rc 0).
func TestPropertiesLeadingBOM(t *testing.T) {
	for _, in := range []string{"\uFEFFsecurity.protocol=SSL\n", "\uFEFFsecurity.protocol=SSL\r\nbootstrap.servers=k:9093\r\n"} {
		s, notes, err := FromProperties(props(t, in))
		if err != nil || !s.TLSOn() || len(notes) != 0 {
			t.Errorf("%q: TLS on %v, notes %q, err %v", in, s.TLSOn(), notes, err)
		}
	}
	s, _, err := FromProperties(props(t, "\uFEFFbootstrap.servers=k:9093\n"))
	if err != nil || strings.Join(s.Brokers, ",") != "k:9093" {
		t.Errorf("brokers %v, %v", s.Brokers, err)
	}
}

// TestFromPropertiesNothingUsable: the wrong file passed as
// --command-config (a PEM key, a password file, an empty file) is
// refused, never a connection with none of the settings meant.
func TestFromPropertiesNothingUsable(t *testing.T) {
	const secret = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
	for in, want := range map[string]string{
		"-----BEGIN PRIVATE KEY-----\n" + secret + "\nAbCd+/0=\n-----END PRIVATE KEY-----\n": "no line is a client setting (lines 1, 2, 3, 4: not named like one;",
		"":                     "holds no setting (it is empty or only comments)",
		"# only a comment\n\n": "holds no setting (it is empty or only comments)",
	} {
		_, _, err := FromProperties(props(t, in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
}

// TestFromPropertiesSecurityLikeKeys: a miscased or mistyped security key
// was a note, and TLS or SASL went with it (QA: securty.protocol=SSL,
// Security.Protocol=SSL connected in plaintext). It is refused, named, with
// the key it is closest to; other unknown keys keep their note.
func TestFromPropertiesSecurityLikeKeys(t *testing.T) {
	for in, want := range map[string]string{
		"securty.protocol=SSL":       `"securty.protocol" is not a setting offsetctl knows (did you mean security.protocol? keys are case-sensitive)`,
		"Security.Protocol=SSL":      `"Security.Protocol" is not a setting offsetctl knows (did you mean security.protocol?`,
		"SSL.Truststore.Location=/x": `"SSL.Truststore.Location" is not a setting offsetctl knows (did you mean ssl.truststore.location?`,
		"SASL.mechanism=PLAIN":       `"SASL.mechanism" is not a setting offsetctl knows (did you mean sasl.mechanism?`,
		"sals.mechanism=PLAIN":       `"sals.mechanism" is not a setting offsetctl knows (did you mean sasl.mechanism?`,
		"Security.Other=1":           `"Security.Other" is not a setting offsetctl knows: it looks like a security setting`,
		"SSL.S3cr3t-Pass=1":          `the key on line 1 is not a setting offsetctl knows`,
	} {
		_, _, err := FromProperties(props(t, "bootstrap.servers=k:1\n"+strings.Replace(in, "line 1", "line 2", 1)))
		want = strings.Replace(want, "line 1", "line 2", 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
		if strings.Contains(want, "line 2") && strings.Contains(err.Error(), "S3cr3t") {
			t.Errorf("%q: the key is shown: %v", in, err)
		}
	}
	for k := range ignoredClientKeys {
		if securityLike(k) {
			t.Errorf("client setting %s taken for a security one", k)
		}
	}
	_, notes, err := FromProperties(props(t, "bootstrap.servers=k:1\nLinger.ms=5\nsession.timeout.ms=1\n"))
	if err != nil || len(notes) != 2 {
		t.Fatalf("other unknown keys: notes %q, %v", notes, err)
	}
}

// TestFromPropertiesDuplicateKeys: the last of two values won silently
// (QA: security.protocol=SSL then =PLAINTEXT connected in plaintext). A key
// given twice with different values is refused, by line, without values.
func TestFromPropertiesDuplicateKeys(t *testing.T) {
	const secret = "Dup-S3cret"
	for in, want := range map[string]string{
		"security.protocol=SSL\nbootstrap.servers=k:1\nsecurity.protocol=PLAINTEXT\n": `"security.protocol" is given twice with different values (lines 1 and 3): keep one`,
		"bootstrap.servers=a:1\n\nbootstrap.servers=b:1\n":                            `"bootstrap.servers" is given twice with different values (lines 1 and 3): keep one`,
		"bootstrap.servers=a:1\n" + secret + "=1\n" + secret + "=2\n":                 "the key on line 2 is given again on line 3 with a different value: keep one",
	} {
		_, _, err := FromProperties(props(t, in))
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%q: a value or key is shown: %v", in, err)
		}
	}
	// The same value twice is harmless.
	if s, _, err := FromProperties(props(t, "security.protocol=SSL\nsecurity.protocol=SSL\n")); err != nil || !s.TLSOn() {
		t.Fatalf("same value twice: %v", err)
	}
}
