// Command auditgen writes an audit log for the audit benchmark
// (bench/audit.sh): -size bytes of reset entries of -changes partition
// changes each, through offsetctl's own writer (so rotation, the index
// and sidecar files are what a real log has), or -legacy: one file written
// directly, every entry's changes inline (a version 1 log of before
// rotation, as QA's 1.1 GB one). It prints the id of the first entry, one
// in the middle and the last.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
)

func main() {
	path := flag.String("log", "audit.jsonl", "log to write (must not exist)")
	size := flag.Int64("size", 1<<30, "bytes of log to write (about)")
	changes := flag.Int("changes", 10000, "partition changes per entry")
	legacy := flag.Bool("legacy", false, "one file, changes inline, no rotation")
	gz := flag.Bool("gzip", false, "gzip rotated files")
	flag.Parse()
	if _, err := os.Lstat(*path); err == nil {
		fmt.Fprintf(os.Stderr, "auditgen: %s exists\n", *path)
		os.Exit(2)
	}
	l, err := audit.OpenWith(*path, audit.Options{Gzip: *gz, RotateSize: map[bool]int64{true: -1, false: 0}[*legacy]})
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditgen:", err)
		os.Exit(1)
	}
	out, err := os.OpenFile(*path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditgen:", err)
		os.Exit(1)
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	var written int64
	for n := 0; written < *size; n++ {
		at = at.Add(time.Hour)
		e := entry(at, n, *changes)
		ids = append(ids, e.ID)
		if *legacy {
			b, _ := audit.Marshal(e)
			if _, err := out.Write(b); err != nil {
				fmt.Fprintln(os.Stderr, "auditgen:", err)
				os.Exit(1)
			}
			written += int64(len(b))
			continue
		}
		if err := l.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, "auditgen:", err)
			os.Exit(1)
		}
		// Entries beyond the inline bound are a short line and a
		// sidecar; count both.
		written += int64(120 * *changes)
	}
	fmt.Println(ids[0], ids[len(ids)/2], ids[len(ids)-1], len(ids))
}

// entry is a reset of group orders-N over -changes partitions of one
// topic, with a backup path that does not exist (undo stops there).
func entry(at time.Time, n, changes int) audit.Entry {
	g := fmt.Sprintf("orders-billing-%04d", n%50)
	e := audit.Entry{
		V: audit.Version, ID: audit.NewID(at), Time: at, Action: audit.ActReset, User: "ops", Host: "bench",
		ClusterID: "bench-cluster", Command: []string{"reset", g, "--all-topics", "--to", "latest", "--execute"},
		Groups: []string{g}, Topics: []string{"orders.events.v2"}, Partitions: changes, Applied: audit.Count(changes),
		Backup: "/nonexistent/offsetctl-backup-" + g + ".csv", BackupSHA256: "0000000000000000000000000000000000000000000000000000000000000000",
		Outcome: audit.Applied, DurationMs: 1234,
	}
	for p := 0; p < changes; p++ {
		before, after := int64(p*1000+n), int64(p*1000+n+500)
		e.Changes = append(e.Changes, audit.Change{Group: g, Topic: "orders.events.v2", Partition: int32(p), Before: &before, After: &after})
	}
	return e
}
