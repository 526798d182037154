package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// stderrLogger sends franz-go's info-level logs to stderr for --verbose.
// franz-go never logs SASL secrets; keyvals are printed as given.
type stderrLogger struct{ w io.Writer }

func (stderrLogger) Level() kgo.LogLevel { return kgo.LogLevelInfo }

func (l stderrLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", level, msg)
	for i := 0; i+1 < len(keyvals); i += 2 {
		fmt.Fprintf(&b, " %v=%v", keyvals[i], keyvals[i+1])
	}
	fmt.Fprintln(l.w, b.String())
}
