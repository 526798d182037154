package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// stderrLogger sends franz-go's debug-level logs (connections, requests,
// retries) to stderr for --verbose.
// franz-go logs from its own goroutines: each line goes out in one Write,
// which os.Stderr keeps whole (tests hand in a synchronized buffer). It
// never logs SASL secrets; keyvals are printed as given.
type stderrLogger struct{ w io.Writer }

func (stderrLogger) Level() kgo.LogLevel { return kgo.LogLevelDebug }

func (l stderrLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", level, msg)
	for i := 0; i+1 < len(keyvals); i += 2 {
		fmt.Fprintf(&b, " %v=%v", keyvals[i], keyvals[i+1])
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(l.w, b.String())
}
