package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/offsetctl/offsetctl/internal/durable"
	"github.com/offsetctl/offsetctl/internal/filelock"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// Environment variables that place the log and say when it rotates.
const (
	EnvLog        = "OFFSETCTL_AUDIT_LOG"
	EnvRotateSize = "OFFSETCTL_AUDIT_ROTATE_SIZE"
	envStateHome  = "XDG_STATE_HOME"
)

// Defaults of Options.
const (
	// DefaultDeadline bounds one append: taking the writers' lock,
	// write(2) and fsync. A local disk takes milliseconds; a stalled NFS
	// mount or a FIFO whose reader stopped reading would take forever.
	DefaultDeadline = 30 * time.Second
	// DefaultRotateSize is the size at which the log is rotated: small
	// enough that one rotated file is read in well under a second.
	DefaultRotateSize = 64 << 20
)

// Stdio is the log's path that names the standard streams: a command
// that changes something writes its entries to Options.Stream (standard
// error: stdout is the command's data), history and undo read standard
// input.
const Stdio = "-"

// DefaultPath is where the log lives when --audit-log is not given:
// $OFFSETCTL_AUDIT_LOG, else $XDG_STATE_HOME/offsetctl/audit.jsonl, else
// $HOME/.local/state/offsetctl/audit.jsonl (the XDG base directory
// default). It is an error when none of them is set.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv(EnvLog); p != "" {
		return p, nil
	}
	if d := getenv(envStateHome); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "offsetctl", "audit.jsonl"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "offsetctl", "audit.jsonl"), nil
	}
	return "", fmt.Errorf("no place for the audit log: set $%s, $%s or $HOME, or pass --audit-log FILE (or --no-audit)", EnvLog, envStateHome)
}

// ParseSize parses a rotation size: bytes, or a number with KiB, MiB or
// GiB (K, M, G too); 0 turns rotation off.
func ParseSize(s string) (int64, error) {
	mult := int64(1)
	num := s
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if len(s) > len(u.suffix) && s[len(s)-len(u.suffix):] == u.suffix {
			mult, num = u.m, s[:len(s)-len(u.suffix)]
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q: want a size such as 64MiB, 1GiB or 1048576 (0: never rotate)", safetext.Arg(s))
	}
	return n * mult, nil
}

// Options say how a log is opened and appended to.
type Options struct {
	// Explicit says the user named the path (--audit-log or
	// $OFFSETCTL_AUDIT_LOG): only then is a FIFO, or "-", accepted.
	Explicit bool
	// Stream is where "-" writes.
	Stream io.Writer
	// Context: a cancellation (SIGTERM) while an append waits ends it.
	Context context.Context
	// Deadline bounds each append; 0 is DefaultDeadline.
	Deadline time.Duration
	// RotateSize: the log is rotated once it is this large; 0 is
	// DefaultRotateSize, negative never.
	RotateSize int64
	// Gzip compresses rotated files.
	Gzip bool
	// Warn receives what went wrong after an entry was safely written
	// (a rotation that failed): never a reason to fail the command.
	Warn func(string)
}

type kind int

const (
	kindFile kind = iota
	kindFIFO
	kindStream
)

// Log is the audit log opened for appending.
type Log struct {
	f     *os.File
	path  string
	kind  kind
	opt   Options
	stuck bool // an append outlived its deadline: the file is left alone
	due   bool // the last append reached the rotation size
	// unlocked: that a FIFO's writers' lock could not be had was said
	// (Options.Warn), once.
	unlocked bool
	// turn is held by the append to a FIFO that locks it: the flock of
	// the FIFO belongs to the one descriptor every append of this Log
	// writes through, so an append given up while it waited for the lock
	// must be done with it before the next takes it (a second LOCK_EX on
	// the same descriptor is granted, and the first's LOCK_UN would undo
	// it).
	turn chan struct{}
}

// Open opens the log at path as a path the user named (a FIFO is
// accepted), with the default deadline and rotation.
func Open(path string) (*Log, error) { return OpenWith(path, Options{Explicit: true}) }

// OpenWith opens (creating, mode 0600, in a directory created 0700) the
// log at path for appending. Opening proves the log writable before a
// change is made. The log must be a regular file owned by the user, not
// reached through a symbolic link; a FIFO or "-" only when o.Explicit.
func OpenWith(path string, o Options) (*Log, error) {
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	if o.RotateSize == 0 {
		o.RotateSize = DefaultRotateSize
	}
	if path == Stdio {
		if !o.Explicit || o.Stream == nil {
			return nil, errors.New("audit log -: the standard streams are only used when --audit-log - is given")
		}
		return &Log{path: path, kind: kindStream, opt: o}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, openUsage(safetext.Arg(path), err)
	}
	f, k, err := openAppend(path, o.Explicit)
	if err != nil {
		return nil, err
	}
	durable.SyncDir(filepath.Dir(path)) // best effort: a new file's directory entry
	return &Log{f: f, path: path, kind: k, opt: o, turn: make(chan struct{}, 1)}, nil
}

// openAppend opens path for appending and checks what it is.
func openAppend(path string, explicit bool) (*os.File, kind, error) {
	shown := safetext.Arg(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openFlags, 0o600)
	switch {
	case errors.Is(err, errNoReader):
		return nil, 0, pathUsage(fmt.Errorf("audit log %s: a pipe with no reader", shown))
	case errors.Is(err, errSymlink):
		return nil, 0, pathUsage(fmt.Errorf("audit log %s: a symbolic link: refused (the log is never reached through a link; name the file itself)", shown))
	case errors.Is(err, syscall.EISDIR):
		return nil, 0, pathUsage(fmt.Errorf("audit log %s: %w; to keep no log use --no-audit", shown, errNotRegular))
	case err != nil:
		return nil, 0, openUsage(shown, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("audit log %s: %w", shown, unwrapPath(err))
	}
	k, err := checkKind(st, explicit)
	if err != nil {
		f.Close()
		if errors.Is(err, errNotRegular) {
			return nil, 0, pathUsage(fmt.Errorf("audit log %s: %w; to keep no log use --no-audit", shown, err))
		}
		return nil, 0, pathUsage(fmt.Errorf("audit log %s: %w", shown, err))
	}
	if k == kindFile {
		// Read-write, to see whether the file ends with a newline; opened
		// write-only first, as a FIFO with no reader must fail to open.
		var rw *os.File
		if rw, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|openFlags, 0); err == nil {
			f.Close()
			f = rw
			if st2, serr := f.Stat(); serr != nil || !sameFile(st, st2) {
				err = errors.New("replaced while it was opened")
			}
		}
	}
	if err != nil {
		f.Close()
		if durable.UserPath(err) {
			return nil, 0, openUsage(shown, err)
		}
		return nil, 0, fmt.Errorf("audit log %s: %w", shown, err)
	}
	return f, k, nil
}

// checkKind accepts a regular file owned by the user, and a FIFO the user
// named.
func checkKind(st fs.FileInfo, explicit bool) (kind, error) {
	switch m := st.Mode(); {
	case m.IsRegular():
		if !ownedByUs(st) {
			return 0, errors.New("owned by another user: refused (its entries are not yours to trust or add to)")
		}
		return kindFile, nil
	case m&fs.ModeNamedPipe != 0 && explicit:
		return kindFIFO, nil
	case m&fs.ModeNamedPipe != 0:
		return 0, errors.New("a FIFO: name it with --audit-log to use a pipe as the log")
	}
	return 0, errNotRegular
}

var errNotRegular = errors.New("not a regular file (a device, a directory or a socket)")

// unwrapPath drops os's own copy of the path (the caller shows it once,
// made safe).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// Path is where the log is.
func (l *Log) Path() string { return l.path }

// Append writes e under the log's options (see AppendContext).
func (l *Log) Append(e Entry) error { return l.AppendContext(l.opt.Context, e) }

// AppendContext writes e as one line and fsyncs, within the deadline.
//
// Each line is one write(2) on a file opened O_APPEND, under the writers'
// lock (LOCK_EX on PATH.lock): Linux moves the offset to the end and
// writes under the inode's lock in one step, and the lock keeps the check
// of the last byte and a rotation from racing another writer. When the
// file does not end with a newline (an earlier write cut short by a full
// disk or a kill), the line starts with one, so a torn fragment is never
// glued to the next entry. A FIFO or stream cannot be read back: there
// every line starts with a newline (writeStream). A FIFO's writers take
// the writers' lock too (lockFIFO): a pipe keeps a write whole only up to
// PIPE_BUF (4096 bytes), and a longer entry that finds the pipe full goes
// in pieces, between which another process's would land. "-" is this
// process's own stream: no lock.
//
// The write runs beside the caller: when it outlives the deadline (a
// stalled mount or a FIFO whose reader stopped reading) or ctx is
// cancelled while it waits, AppendContext returns an error and the log is
// left alone (not even closed: close(2) would wait for the stuck write).
// A ctx already cancelled when the append starts does not stop it: the
// record of a change made before a SIGTERM still gets its chance, within
// the deadline.
func (l *Log) AppendContext(ctx context.Context, e Entry) error {
	if ctx == nil || ctx.Err() != nil {
		ctx = context.WithoutCancel(orBackground(ctx))
	}
	if l.stuck {
		return fmt.Errorf("writing audit log %s: an earlier append is still stuck", safetext.Arg(l.path))
	}
	if l.kind == kindFIFO {
		// The poller owns a FIFO: the deadline ends a write that waits.
		_ = l.f.SetWriteDeadline(time.Now().Add(l.opt.Deadline))
	}
	done := make(chan error, 1)
	stop := make(chan struct{})
	pr := &progress{}
	go func() {
		line, err := l.encode(e)
		if err == nil {
			err = l.write(line, stop, pr)
		}
		done <- err
	}()
	timer := time.NewTimer(l.opt.Deadline)
	defer timer.Stop()
	var why, whyLock string
	select {
	case err := <-done:
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// A FIFO's own deadline (the same) may end the write first.
			return fmt.Errorf("writing audit log %s: the append did not finish within %s (a stalled disk, network mount or pipe): the entry may be missing or cut short", safetext.Arg(l.path), l.opt.Deadline)
		}
		if err != nil {
			return fmt.Errorf("writing audit log %s: %w", safetext.Arg(l.path), err)
		}
		if why := pr.unlocked.Load(); why != nil && !l.unlocked {
			l.unlocked = true
			if l.opt.Warn != nil {
				l.opt.Warn(*why)
			}
		}
		if l.due {
			l.due = false
			l.rotateIfDue()
		}
		return nil
	case <-timer.C:
		why = fmt.Sprintf("did not finish within %s (a stalled disk, network mount or pipe)", l.opt.Deadline)
		whyLock = fmt.Sprintf("waited %s", l.opt.Deadline)
	case <-ctx.Done():
		why = fmt.Sprintf("was interrupted while it waited (%v)", context.Cause(ctx))
		whyLock = fmt.Sprintf("was interrupted (%v) while it waited", context.Cause(ctx))
	}
	return l.giveUp(stop, done, pr, why, whyLock)
}

// giveUp ends an append the caller stopped waiting for; why and whyLock
// say why (the deadline, a cancellation) for a write and for the lock.
func (l *Log) giveUp(stop chan struct{}, done <-chan error, pr *progress, why, whyLock string) error {
	close(stop)
	if l.kind != kindStream && pr.phase.CompareAndSwap(phaseLocking, phaseAbandoned) {
		// Still waiting for the lock: not a byte was written, and the
		// log is fit for the next append.
		held := lockPath(l.path)
		if p := pr.lock.Load(); p != nil {
			held = *p
		}
		return fmt.Errorf("writing audit log %s: the append %s for the lock another offsetctl holds on it (%s): nothing was written", safetext.Arg(l.path), whyLock, safetext.Arg(held))
	}
	if l.kind == kindFIFO {
		_ = l.f.SetWriteDeadline(time.Now()) // wakes the write: it ends
		if err := <-done; err == nil {
			return nil // it went through at the last moment
		}
	} else {
		l.stuck = true
	}
	return fmt.Errorf("writing audit log %s: the append %s: the entry may be missing or cut short", safetext.Arg(l.path), why)
}

// The phases of an append to a file: it waits for the writers' lock,
// then writes under it. The caller giving up and the writer taking the
// lock race for the phase: whichever moves it first decides, so an
// append given up while it waited has written nothing.
const (
	phaseLocking int32 = iota
	phaseWriting
	phaseAbandoned
)

// progress is how far an append got, shared by the writer and the caller
// that may give up on it: the phase, and the lock it waits for (nil: the
// lock beside the log).
type progress struct {
	phase atomic.Int32
	lock  atomic.Pointer[string]
	// unlocked says why a FIFO's entry was appended without a lock
	// (lockFIFO), for the caller to warn once the append is done.
	unlocked atomic.Pointer[string]
}

func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// write does one append; stop is closed when the caller gave up, and
// pr says whether it did so before the lock was taken.
func (l *Log) write(line []byte, stop <-chan struct{}, pr *progress) error {
	switch l.kind {
	case kindStream:
		return l.writeStream(l.opt.Stream, line)
	case kindFIFO:
		select {
		case l.turn <- struct{}{}:
		case <-stop:
			return errGivenUp
		}
		defer func() { <-l.turn }()
		unlock, err := l.lockFIFO(stop, pr)
		if err != nil {
			return err
		}
		defer unlock()
		if !pr.phase.CompareAndSwap(phaseLocking, phaseWriting) {
			return errGivenUp
		}
		return l.writeStream(l.f, line)
	}
	lock, err := l.lock(stop)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if !pr.phase.CompareAndSwap(phaseLocking, phaseWriting) {
		return errGivenUp
	}
	if err := l.reopenIfRotated(); err != nil {
		return err
	}
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	if !endsWithNewline(l.f, st.Size()) {
		line = append([]byte{'\n'}, line...)
	}
	if err := writeAll(l.f, line); err != nil {
		return err
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	l.due = l.opt.RotateSize > 0 && st.Size()+int64(len(line)) >= l.opt.RotateSize
	return nil
}

// writeStream writes line to a FIFO or stream, starting with a newline.
// What was written before is not ours to inspect (a pipe cannot be read
// back, a terminal or socket neither), and a write cut short there (the
// deadline, a kill) may have been another process's: only a newline of
// its own keeps this entry off a fragment left in the pipe. Readers skip
// the blank lines it makes. fsync answers EINVAL on a pipe: the line was
// written, so that is no failure.
func (l *Log) writeStream(w io.Writer, line []byte) error {
	line = append([]byte{'\n'}, line...)
	n, err := w.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	return err
}

func writeAll(f *os.File, b []byte) error {
	n, err := f.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil && n > 0 {
		return fmt.Errorf("%w (%d of %d bytes written: a torn line the next entry will not be glued to)", err, n, len(b))
	}
	return err
}

// endsWithNewline says whether the file of size bytes ends with '\n' (an
// empty file does); a byte that cannot be read counts as no newline, which
// costs at most a blank line.
func endsWithNewline(f *os.File, size int64) bool {
	if size == 0 {
		return true
	}
	var b [1]byte
	n, err := f.ReadAt(b[:], size-1)
	return n == 1 && err == nil && b[0] == '\n'
}

// lockPath is the writers' lock beside the log.
func lockPath(path string) string { return path + ".lock" }

// errGivenUp is what a writer returns when its caller gave up while it
// waited for the lock: nothing was written.
var errGivenUp = errors.New("given up while it waited for the lock")

// lock takes the writers' lock, waiting until stop is closed.
func (l *Log) lock(stop <-chan struct{}) (*filelock.Lock, error) {
	// The lock file is made here, 0600, never through a link (filelock
	// would create it 0644 and follow one).
	lp := lockPath(l.path)
	if f, err := os.OpenFile(lp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openFlags, 0o600); err == nil {
		f.Close()
	}
	if st, err := os.Lstat(lp); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("the lock %s is not a regular file (a symbolic link?): refused", safetext.Arg(lp))
	}
	var lk *filelock.Lock
	err := waitLock(stop, func() (err error) {
		lk, err = filelock.TryLock(lp)
		return err
	})
	return lk, err
}

// waitLock calls try until it takes its lock (nil), fails otherwise than
// filelock.ErrLocked, or stop is closed.
func waitLock(stop <-chan struct{}, try func() error) error {
	wait := time.Millisecond
	for {
		err := try()
		if !errors.Is(err, filelock.ErrLocked) {
			return err
		}
		select {
		case <-stop:
			return errors.New("another offsetctl holds the audit log's lock")
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// lockFIFO takes a FIFO's writers' lock, waiting until stop is closed,
// and returns what releases it. It is two locks, taken in this order by
// every writer:
//
//   - PATH.lock beside the FIFO, as a regular log's writers take it,
//     when it can be had: a directory the user cannot write takes no new
//     lock file, and another user's lock file (mode 0600) cannot be
//     opened; then the FIFO itself is the lock;
//   - flock(2) of the FIFO itself, on the descriptor the log writes
//     (Linux locks a FIFO as any file; where the system cannot, this one
//     is left out). Every writer of the FIFO can take it, whatever it
//     may do in the directory, so a writer that had to do without
//     PATH.lock still excludes the ones that have it.
//
// With neither, the entry is appended unlocked, as before the lock
// existed, and Options.Warn says so once the append is done (once per
// Log).
func (l *Log) lockFIFO(stop <-chan struct{}, pr *progress) (func(), error) {
	beside, err := l.lock(stop)
	var besideErr error
	switch {
	case err == nil:
	case cannotLockBeside(err):
		besideErr, beside = err, nil
	default:
		return nil, err
	}
	own := l.path
	pr.lock.Store(&own)
	err = waitLock(stop, func() error { return filelock.TryLockOpen(l.f) })
	switch {
	case err == nil:
		return func() {
			_ = filelock.UnlockOpen(l.f)
			_ = beside.Unlock()
		}, nil
	case errors.Is(err, filelock.ErrUnsupported) && beside != nil:
		return func() { _ = beside.Unlock() }, nil
	case errors.Is(err, filelock.ErrUnsupported):
		why := fmt.Sprintf("audit log %s: a FIFO whose writers' lock cannot be had (%s: %v; and this system cannot lock the FIFO itself): entries are appended unlocked, so one over 4096 bytes (PIPE_BUF) may interleave with another offsetctl's", safetext.Arg(l.path), safetext.Arg(lockPath(l.path)), unwrapPath(besideErr))
		pr.unlocked.Store(&why)
		return func() {}, nil
	}
	_ = beside.Unlock()
	return nil, err
}

// cannotLockBeside says whether err, from taking the lock beside a FIFO,
// means that lock is not to be had here (no permission, a read-only file
// system), rather than that it failed.
func cannotLockBeside(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// reopenIfRotated reopens the log when the file at its path is no longer
// the one this Log holds (another writer rotated it since), so that no
// entry lands in a rotated file.
func (l *Log) reopenIfRotated() error {
	held, err := l.f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Lstat(l.path)
	if err == nil && sameFile(held, now) {
		return nil
	}
	f, _, err := openAppend(l.path, l.opt.Explicit)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return nil
}

// Close closes the log (a log whose append is stuck is left open).
func (l *Log) Close() error {
	if l.f == nil || l.stuck {
		return nil
	}
	return l.f.Close()
}

// Append opens the log at path, appends e and closes it.
func Append(path string, e Entry) error {
	l, err := Open(path)
	if err != nil {
		return err
	}
	if err := l.Append(e); err != nil {
		l.Close()
		return err
	}
	return l.Close()
}
