package admin

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/lag"

	"github.com/offsetctl/offsetctl/internal/safetext"
	"github.com/offsetctl/offsetctl/internal/textlist"
	"github.com/offsetctl/offsetctl/internal/topicname"
)

// Reset plans use Apache's kafka-consumer-groups CSV, without a header:
// "topic,partition,offset" for one group or "group,topic,partition,offset".
//
// Backups add kinds of record that Apache's --from-file parses and then
// ignores, because their group field is never the group being reset:
//
//	offsetctl:cluster,CLUSTER_ID,0,0          the offsets are those of cluster CLUSTER_ID (first
//	                                          line; once per file)
//	offsetctl:backup,GROUP,0,UNIX_MS          the file is a backup of GROUP taken at UNIX_MS
//	offsetctl:no-commit:GROUP,TOPIC,P,0       GROUP had no committed offset on TOPIC/P
//	offsetctl:share-group,GROUP,0,0           GROUP is a share group (KIP-932): its offsets are
//	                                          share-partition start offsets
//	offsetctl:end,DIGEST,0,N                  the backup ends here: N records came before this
//	                                          one, from the cluster marker on, and DIGEST is
//	                                          the first 24 hex digits of the SHA-256 of their
//	                                          fields (recordDigest) (last line)
//
// A backup whose cluster marker ends in 1 (offsetctl:cluster,ID,0,1) must
// close with its end record, whose count and digest must match: a file
// cut short (a partial copy, a disk that filled while it was copied) or
// edited would otherwise restore some partitions, or other offsets, and
// say nothing. The digest is of the fields as read, so line endings, a
// byte order mark and CSV quoting do not change it. Backups written before
// the end record existed end their cluster marker in 0 and are read as
// before.
//
// Apache's reader accepts neither comments, blank lines inside the file nor a
// header, so the markers are ordinary records. Apache's reader (kafka
// tools, GroupOffsetsResetter.parseResetPlan) splits the file on "\n",
// reads the first line as topic,partition,offset to tell the three-column
// form, and otherwise reads every line as group,topic,partition,offset into
// a map by group, of which a reset takes only the groups it resets: a
// marker's group field starts with "offsetctl:", which offsetctl never
// resets (CheckGroupName), its topic field is any string (TopicPartition
// checks none), and its partition and offset fields are numbers. The
// cluster marker is a backup's first line: read as topic,partition,offset
// its partition field is the cluster id (22 base64url characters, not a
// number) and a fourth field is left over, so Apache takes the
// four-column form, as it did from the backup marker that came first
// before.
const (
	BackupMarker   = "offsetctl:backup"
	NoCommitPrefix = "offsetctl:no-commit:"
	// ShareMarker says a backed-up group is a share group, so that a
	// restore after the group is gone (kfake drops a share group with no
	// members and no start offsets) sets start offsets again instead of
	// creating a consumer group of the same name.
	ShareMarker = "offsetctl:share-group"
	// ClusterMarker names the cluster whose offsets the file holds (its
	// id, from Metadata), so that a restore on another cluster is
	// refused: two clusters with the same group and topic names (a DR
	// pair, staging and production) are told apart by it only.
	ClusterMarker = "offsetctl:cluster"
	// EndMarker closes a backup (see above).
	EndMarker = "offsetctl:end"
	// endDigestLen is the length of the end record's digest, in hex
	// digits: 96 bits, and short enough that Apache's quoting rule
	// (over 24 characters) leaves it bare.
	endDigestLen = 24
)

// editedHint says how to restore a backup edited on purpose: it is then
// a plan, which the end record no longer describes. A backup with a
// cluster line also says there that it ends with the record.
func (sec *backupSection) editedHint() string {
	if sec.wantEnd {
		return "if you edited it on purpose, delete its offsetctl:end line and end its first line in ,0,0 instead of ,0,1"
	}
	return "if you edited it on purpose, delete its offsetctl:end line"
}

// recordDigest hashes a backup's records (four fields each), field by
// field, each length-prefixed so that no two different records hash
// alike.
type recordDigest struct{ h hash.Hash }

func newRecordDigest() recordDigest { return recordDigest{h: sha256.New()} }

func (d recordDigest) add(fields ...string) {
	var n [binary.MaxVarintLen64]byte
	d.h.Write(n[:binary.PutUvarint(n[:], uint64(len(fields)))])
	for i, f := range fields {
		if i > 0 {
			f = strings.TrimSpace(f) // as planFields reads it: only a group keeps its blanks
		}
		d.h.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		io.WriteString(d.h, f)
	}
}

func (d recordDigest) sum() string {
	return hex.EncodeToString(d.h.Sum(nil))[:endDigestLen]
}

// PlanRow is one row of a plan file.
type PlanRow struct {
	Group     string // empty in a three-column file
	Topic     string
	Partition int32
	Offset    int64
	// NoCommit marks a backup row saying the group had no commit here: a
	// restore deletes the group's offset for the partition.
	NoCommit bool
	Line     int
}

// PlanFile is a parsed plan.
type PlanFile struct {
	// Columns is 3 (topic,partition,offset) or 4 (group first).
	Columns int
	Rows    []PlanRow
	// Backups maps each group the file is a backup of to the backup time
	// (unix ms). Rows of those groups are restored verbatim, not clamped.
	Backups map[string]int64
	// Share holds the backed-up groups marked as share groups.
	Share map[string]bool
	// ClusterID is the id of the cluster the file's offsets are of (its
	// ClusterMarker record), "" when it names none (Apache's exports,
	// hand-written plans, backups of an older offsetctl).
	ClusterID string
	// clusterLine is the line that named ClusterID.
	clusterLine int
	// sec is the backup being read, for its end record.
	sec backupSection
}

// backupSection follows one backup in a file (from its cluster marker, or
// the file's start) to its end record.
type backupSection struct {
	start   int  // line of its cluster marker (0: the file's start)
	records int  // records read in it so far
	wantEnd bool // its cluster marker says it closes with an end record
	endLine int  // line of its end record, 0 before it
	digest  recordDigest
}

// utf8BOM is the byte order mark spreadsheet programs put first in a
// UTF-8 CSV file.
const utf8BOM = "\ufeff"

// maxPlanLine bounds a plan line (a 249-char topic and a long group name fit).
const maxPlanLine = 64 << 10

// CheckGroupName refuses the group names a backup cannot hold: the names
// offsetctl's backup format reserves (its marker rows start with
// "offsetctl:") and names with a line break (CSV lines, and Apache's
// --from-file reads one row a line). A change is backed up before it is
// made, so such a group is refused before any file is created.
func CheckGroupName(name string) error {
	if strings.HasPrefix(name, "offsetctl:") {
		return exitcode.Usagef("group %s: names starting with \"offsetctl:\" are reserved by offsetctl's backup format, so its offsets could not be backed up and restored; use kafka-consumer-groups.sh for this group", safetext.Arg(name))
	}
	if strings.ContainsAny(name, "\r\n") {
		return exitcode.Usagef("group %s: a name with a line break cannot be written to a backup CSV, so its offsets could not be backed up and restored; use kafka-consumer-groups.sh for this group", safetext.Arg(name))
	}
	return nil
}

// UnbackableReason says in a few words why CheckGroupName refuses name
// ("" when it does not), for the note of a group a selection skipped.
func UnbackableReason(name string) string {
	switch {
	case strings.HasPrefix(name, "offsetctl:"):
		return "a name starting with \"offsetctl:\" cannot be backed up"
	case strings.ContainsAny(name, "\r\n"):
		return "a name with a line break cannot be backed up"
	}
	return ""
}

// MaxGroupLen is the longest group id the protocol carries: a STRING's
// length is an int16, so 32,767 bytes. A longer one never reaches a
// broker (the client fails to encode it: "EOF"), so it is bad input.
const MaxGroupLen = 32767

// CheckGroupArg checks a group named on the command line or in a plan:
// not empty and not longer than the protocol allows. The error shows the
// name shortened (safetext.Arg), never 130 KB of it.
func CheckGroupArg(name string) error {
	if name == "" {
		return exitcode.Usagef("empty group name")
	}
	if len(name) > MaxGroupLen {
		return exitcode.Usagef("group %s is longer than Kafka's limit of %d bytes", safetext.Arg(name), MaxGroupLen)
	}
	return nil
}

// ParsePlanCSV parses a plan. It accepts everything Apache's --from-file
// accepts (LF or CRLF lines, trailing blank lines, CSV quoting) and, for
// hand-written plans, also a leading UTF-8 byte order mark (Excel writes
// one), blank lines, lines starting with '#' and a header
// line (topic,partition,offset or group,topic,partition,offset). Every
// record must have the same number of fields, 3 or 4. A partition listed
// twice for the same group with different offsets is an error.
func ParsePlanCSV(data []byte) (PlanFile, error) {
	// Before any cluster marker, a backup counts from the file's start.
	pf := PlanFile{Backups: map[string]int64{}, Share: map[string]bool{}, sec: backupSection{digest: newRecordDigest()}}
	seen := map[planKey]PlanRow{}
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		n := i + 1
		if err := pf.parseLine(seen, n, line); err != nil {
			cutMarker := bytes.HasPrefix(bytes.TrimPrefix(line, []byte(utf8BOM)), []byte("offsetctl:"))
			if i == len(lines)-1 && len(line) > 0 && (pf.sec.wantEnd && pf.sec.endLine == 0 || cutMarker) {
				// The last line of a backup with no end record yet
				// (or a marker record), and no line break after it:
				// a file cut mid-line.
				err = fmt.Errorf("%w (the file ends inside this line, with no %s record: it was cut short; use a complete copy)", err, EndMarker)
			}
			return pf, err
		}
	}
	if pf.sec.wantEnd && pf.sec.endLine == 0 {
		return pf, fmt.Errorf("the backup that starts on line %d has no %s record: the file was cut short (a partial copy, a full disk?) after %s, so it holds only part of what was backed up; use a complete copy (%s)", pf.sec.start, EndMarker, textlist.Count(pf.sec.records, "record"), pf.sec.editedHint())
	}
	if pf.Columns == 0 {
		pf.Columns = 4
	}
	return pf, nil
}

// parseLine reads line n of a plan into pf.
func (pf *PlanFile) parseLine(seen map[planKey]PlanRow, n int, line []byte) error {
	// A byte order mark starting a backup's cluster line: a second backup
	// saved by a spreadsheet program and joined to the first. Elsewhere
	// it stays: a group's name may start with one, and must not be read
	// as another group's.
	if rest, ok := bytes.CutPrefix(line, []byte(utf8BOM)); ok && bytes.HasPrefix(rest, []byte(ClusterMarker+",")) {
		line = rest
	}
	fields, raw, ok, err := planFields(line, n)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	if isHeader(fields) {
		if len(pf.Rows) > 0 || pf.Columns != 0 {
			return fmt.Errorf("line %d: header line after data", n)
		}
		pf.Columns = len(fields)
		return nil
	}
	if err := pf.checkColumns(n, len(fields)); err != nil {
		return err
	}
	if err := pf.sec.next(n, fields); err != nil {
		return err
	}
	row, ok, err := pf.parseRecord(n, fields, raw)
	if err != nil {
		return err
	}
	if ok {
		if err := pf.add(seen, row); err != nil {
			return err
		}
	}
	return nil
}

// next counts record n of the file (fields as read) in its backup: a
// cluster marker starts a new one (backups of one cluster may be joined
// in a file), and nothing but a new backup may follow an end record.
func (sec *backupSection) next(n int, fields []string) error {
	group := ""
	if len(fields) == 4 {
		group = fields[0]
	}
	switch {
	case group == ClusterMarker:
		if sec.wantEnd && sec.endLine == 0 {
			return fmt.Errorf("line %d: a backup starts, but the one that started on line %d has no %s record: that one was cut short; use a complete copy (%s)", n, sec.start, EndMarker, sec.editedHint())
		}
		*sec = backupSection{start: n, records: 1, wantEnd: fields[3] == "1", digest: newRecordDigest()}
		sec.digest.add(fields...)
		return nil
	case sec.endLine != 0:
		return fmt.Errorf("line %d: a record after the %s record on line %d (a backup ends with it)", n, EndMarker, sec.endLine)
	case group == EndMarker:
		want, err := strconv.Atoi(fields[3])
		if len(fields[1]) != endDigestLen || fields[2] != "0" || err != nil || want < 0 {
			return fmt.Errorf("line %d: bad %s record (want %s,DIGEST,0,N)", n, EndMarker, EndMarker)
		}
		if want != sec.records {
			return fmt.Errorf("line %d: the backup's %s record counts %s before it, but the file has %d: it was cut or edited, so it is not the backup as written (%s)", n, EndMarker, textlist.Count(want, "record"), sec.records, sec.editedHint())
		}
		if !strings.EqualFold(fields[1], sec.digest.sum()) {
			return fmt.Errorf("line %d: the backup's records differ from what its %s record says was written: it was edited (a line changed, moved, added or removed), so it is not the backup as written (%s)", n, EndMarker, sec.editedHint())
		}
		sec.endLine = n
		return nil
	}
	sec.digest.add(fields...)
	sec.records++
	return nil
}

// planKey is a row's identity: a partition listed twice for a group.
type planKey struct {
	group, topic string
	partition    int32
}

// planFields reads line n as one CSV record: ok false for a blank or
// comment line. raw is the fields as written; fields are trimmed, but
// for a group name (blanks are allowed there).
func planFields(b []byte, n int) (fields, raw []string, ok bool, err error) {
	line := strings.TrimSuffix(string(b), "\r")
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		return nil, nil, false, nil
	}
	if len(line) > maxPlanLine {
		return nil, nil, false, fmt.Errorf("line %d: longer than %d bytes", n, maxPlanLine)
	}
	r := csv.NewReader(strings.NewReader(line))
	r.FieldsPerRecord = -1
	fields, err = r.Read()
	if err != nil {
		return nil, nil, false, fmt.Errorf("line %d: %v", n, csvErr(err))
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, nil, false, fmt.Errorf("line %d: more than one record (a quoted newline?)", n)
	}
	raw = append([]string(nil), fields...)
	// Group names may have blanks; topics and numbers cannot.
	for j := range fields {
		if len(fields) != 4 || j > 0 {
			fields[j] = strings.TrimSpace(fields[j])
		}
	}
	return fields, raw, true, nil
}

// checkColumns holds every record to 3 or 4 fields, the same in all.
func (pf *PlanFile) checkColumns(n, fields int) error {
	if fields != 3 && fields != 4 {
		return fmt.Errorf("line %d: want topic,partition,offset or group,topic,partition,offset, got %d fields", n, fields)
	}
	if pf.Columns == 0 {
		pf.Columns = fields
	} else if pf.Columns != fields {
		return fmt.Errorf("line %d: %d fields, but earlier lines have %d", n, fields, pf.Columns)
	}
	return nil
}

// parseRecord reads record n: a row (ok), or a marker of the backup
// format that it records in pf (not ok: no row).
func (pf *PlanFile) parseRecord(n int, fields, raw []string) (PlanRow, bool, error) {
	row := PlanRow{Line: n}
	f := fields
	if len(f) == 4 {
		row.Group = f[0]
		if row.Group == "" {
			return row, false, fmt.Errorf("line %d: empty group", n)
		}
		f = f[1:]
	}
	switch row.Group {
	case BackupMarker:
		ms, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || raw[1] == "" {
			return row, false, fmt.Errorf("line %d: bad %s record", n, BackupMarker)
		}
		pf.Backups[raw[1]] = ms
		return row, false, nil
	case ShareMarker:
		if raw[1] == "" {
			return row, false, fmt.Errorf("line %d: bad %s record", n, ShareMarker)
		}
		pf.Share[raw[1]] = true
		return row, false, nil
	case ClusterMarker:
		return row, false, pf.cluster(n, raw[1], f[1], f[2])
	case EndMarker:
		return row, false, nil // counted by backupSection.next
	}
	if g, ok := strings.CutPrefix(row.Group, NoCommitPrefix); ok {
		if g == "" {
			return row, false, fmt.Errorf("line %d: %s with no group", n, NoCommitPrefix)
		}
		row.Group, row.NoCommit = g, true
	}
	if err := pf.checkTopic(f[0]); err != nil {
		return row, false, fmt.Errorf("line %d: topic %q: %v", n, f[0], err)
	}
	row.Topic = f[0]
	p, err := lag.ParsePartition(f[1])
	if err != nil {
		return row, false, fmt.Errorf("line %d: %v", n, err)
	}
	row.Partition = p
	off, err := ParseOffset(f[2])
	if err != nil {
		return row, false, fmt.Errorf("line %d: %v", n, err)
	}
	row.Offset = off
	if row.NoCommit {
		row.Offset = 0
	}
	return row, true, nil
}

// checkTopic applies Kafka's topic-name rules to a plan's topic, except
// in a backup that ends with an end record (its digest is checked when
// the record is reached): that file was written by offsetctl from the
// names a cluster gave, and a cluster that is not Apache Kafka (kfake, the
// playground) may hold names outside [a-zA-Z0-9._-]. What offsetctl
// backed up it must restore, so there any name a cluster can send is
// read: not empty, at most MaxTopicBytes, valid UTF-8 with nothing a
// terminal would act on.
func (pf *PlanFile) checkTopic(t string) error {
	err := lag.CheckTopicName(t)
	if err == nil || !pf.sec.wantEnd {
		return err
	}
	if t == "" || len(t) > MaxTopicBytes || safetext.Name(t) != t {
		return err
	}
	return nil
}

// MaxTopicBytes bounds a topic name read from a backup: Kafka's 249
// characters, four bytes each at most.
const MaxTopicBytes = 4 * topicname.MaxLen

// cluster records the ClusterMarker record on line n: the id as written
// (not trimmed: it is compared with the connected cluster's, byte for
// byte), and numbers in the partition and offset fields, as Apache's
// reader needs them. A file holds one cluster's offsets: a second record
// naming another id is an error, the same id again a harmless repeat (a
// backup cut and pasted after another of the same cluster).
func (pf *PlanFile) cluster(n int, id, partition, offset string) error {
	_, perr := strconv.ParseInt(partition, 10, 32)
	if id == "" || perr != nil || (offset != "0" && offset != "1") {
		return fmt.Errorf("line %d: bad %s record (want %s,CLUSTER_ID,0,1, or ,0,0 in a backup without an end record)", n, ClusterMarker, ClusterMarker)
	}
	if pf.ClusterID != "" && pf.ClusterID != id {
		return fmt.Errorf("line %d: %s names cluster %s, but line %d named cluster %s: a plan, backup or snapshot holds one cluster's offsets", n, ClusterMarker, safetext.Arg(id), pf.clusterLine, safetext.Arg(pf.ClusterID))
	}
	if pf.ClusterID == "" {
		pf.ClusterID, pf.clusterLine = id, n
	}
	return nil
}

// add appends row unless its partition is listed already for its group:
// with the same offset that is a harmless repeat, with another an error.
func (pf *PlanFile) add(seen map[planKey]PlanRow, row PlanRow) error {
	k := planKey{row.Group, row.Topic, row.Partition}
	if prev, dup := seen[k]; dup {
		if prev.Offset != row.Offset || prev.NoCommit != row.NoCommit {
			return fmt.Errorf("line %d: %s partition %d listed again with a different offset (first on line %d)", row.Line, row.Topic, row.Partition, prev.Line)
		}
		return nil
	}
	seen[k] = row
	pf.Rows = append(pf.Rows, row)
	return nil
}

func csvErr(err error) error {
	var pe *csv.ParseError
	if e, ok := err.(*csv.ParseError); ok {
		pe = e
		return pe.Err
	}
	return err
}

func isHeader(f []string) bool {
	lower := make([]string, len(f))
	for i, s := range f {
		lower[i] = strings.ToLower(s)
	}
	j := strings.Join(lower, ",")
	return j == "topic,partition,offset" || j == "group,topic,partition,offset"
}

// GroupsIn returns the groups a four-column plan names, in file order.
func (pf PlanFile) GroupsIn() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range pf.Rows {
		if !seen[r.Group] {
			seen[r.Group] = true
			out = append(out, r.Group)
		}
	}
	return out
}

// RowsFor returns the rows that apply to group: every row of a
// three-column file, or the rows naming group in a four-column one.
func (pf PlanFile) RowsFor(group string) []PlanRow {
	if pf.Columns == 3 {
		return pf.Rows
	}
	var out []PlanRow
	for _, r := range pf.Rows {
		if r.Group == group {
			out = append(out, r)
		}
	}
	return out
}

// WritePlanCSV writes rows in Apache's format: three columns when
// withGroup is false, else four. NoCommit rows are written as
// offsetctl:no-commit:GROUP records (four columns only).
func WritePlanCSV(w io.Writer, rows []PlanRow, withGroup bool) error {
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		if withGroup {
			g := r.Group
			if r.NoCommit {
				g = NoCommitPrefix + g
			}
			b.WriteString(csvField(g))
			b.WriteByte(',')
		} else if r.NoCommit {
			return fmt.Errorf("%s partition %d: a no-commit row needs the four-column format", r.Topic, r.Partition)
		}
		fmt.Fprintf(&b, "%s,%d,%d\n", csvField(r.Topic), r.Partition, r.Offset)
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// csvField quotes a string field the way Apache's --export does, so the
// lines are the same: Jackson's CSV writer quotes a string that is empty,
// longer than 24 characters, or has a character below '-' (space, quote,
// comma, '#', ...), doubling inner quotes; other strings go out bare.
func csvField(s string) string {
	quote := s == "" || utf8.RuneCountInString(s) > 24
	for i := 0; i < len(s) && !quote; i++ {
		quote = s[i] < '-'
	}
	if !quote {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// BackupGroup is the state of one group's scoped partitions before a change.
type BackupGroup struct {
	Group string
	// Share marks a share group's backup (ShareMarker).
	Share bool
	// Rows hold the committed offsets; NoCommit rows the partitions the
	// group had no commit on.
	Rows []PlanRow
}

// WriteBackupCSV writes a backup of cluster clusterID's groups: the
// cluster marker, then per group a backup marker and one row per
// partition (no-commit markers for partitions without a commit). Apache's
// --from-file reads the committed offsets from it. Without a cluster id
// (the cluster did not say it), or with one no CSV line can hold (a line
// break), the file names no cluster, as before the marker existed.
func WriteBackupCSV(w io.Writer, at time.Time, clusterID string, groups []BackupGroup) error {
	bw := &backupWriter{w: w, digest: newRecordDigest()}
	if clusterID != "" && !strings.ContainsAny(clusterID, "\r\n") {
		// ",1": this backup closes with its end record.
		bw.record(ClusterMarker, clusterID, "0", "1")
	}
	ms := strconv.FormatInt(at.UnixMilli(), 10)
	for _, g := range groups {
		if strings.ContainsAny(g.Group, "\r\n") {
			return fmt.Errorf("group %q: a group name with a line break cannot be written to a CSV plan", g.Group)
		}
		bw.record(BackupMarker, g.Group, "0", ms)
		if g.Share {
			bw.record(ShareMarker, g.Group, "0", "0")
		}
		for _, r := range g.Rows {
			group, off := g.Group, strconv.FormatInt(r.Offset, 10)
			if r.NoCommit {
				group, off = NoCommitPrefix+g.Group, "0"
			}
			bw.record(group, r.Topic, strconv.FormatInt(int64(r.Partition), 10), off)
		}
	}
	if bw.err != nil {
		return bw.err
	}
	_, err := fmt.Fprintf(w, "%s,%s,0,%d\n", EndMarker, bw.digest.sum(), bw.records)
	return err
}

// backupWriter writes a backup's records, counting and hashing them for
// its end record as the reader will (backupSection.next).
type backupWriter struct {
	w       io.Writer
	digest  recordDigest
	records int
	line    strings.Builder
	err     error
}

func (bw *backupWriter) record(fields ...string) {
	if bw.err != nil {
		return
	}
	bw.line.Reset()
	for i, f := range fields {
		if i > 0 {
			bw.line.WriteByte(',')
		}
		bw.line.WriteString(csvField(f))
	}
	bw.line.WriteByte('\n')
	if _, bw.err = io.WriteString(bw.w, bw.line.String()); bw.err == nil {
		bw.digest.add(fields...)
		bw.records++
	}
}
