package exporter

import (
	"bufio"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Handler serves /metrics in the Prometheus text format: reg's metrics
// (the Go runtime, the process and each gather's health, few and read at
// scrape time) through client_golang's encoder, then the lag families of
// cols as their latest gather wrote them (WriteText). A scrape costs
// copying bytes, whatever the number of series. A scraper that accepts
// gzip (Prometheus does) gets the page gzipped at the fastest level: the
// page is mostly repeated label text and shrinks about 17-fold, so a slow
// link or a slow reader holds a fraction of the bytes in flight.
// klauspost/compress's gzip (franz-go already uses it): on a 62 MB page
// of a million lag lines its fastest level took a median 87 ms against the
// standard library's 122 ms (6 runs each, interleaved), for the same size.
func Handler(reg prometheus.Gatherer, cols ...*Collector) http.Handler {
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mfs, err := reg.Gather()
		if err != nil {
			http.Error(w, "gathering metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", string(format))
		w.Header().Add("Vary", "Accept-Encoding")
		var out io.Writer = w
		if acceptsGzip(r) {
			w.Header().Set("Content-Encoding", "gzip")
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // a valid level: no error
			defer zw.Close()
			out = zw
		}
		bw := bufio.NewWriterSize(out, 64<<10)
		enc := expfmt.NewEncoder(bw, format)
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				return // the scraper went away
			}
		}
		if err := WriteText(bw, cols...); err != nil {
			return
		}
		_ = bw.Flush()
	})
}

// acceptsGzip reports whether r's Accept-Encoding lists gzip with a
// non-zero quality.
func acceptsGzip(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// scrapeTimeoutHeader is the scrape timeout Prometheus sends with every
// scrape (its scrape_timeout, in seconds, e.g. "10" or "9.5").
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// maxScrapeTimeout bounds the header when there is no write timeout to
// cap it (and keeps the conversion to a Duration from overflowing).
const maxScrapeTimeout = time.Hour

// scrapeTimeout is r's X-Prometheus-Scrape-Timeout-Seconds, capped by max
// (0: by maxScrapeTimeout); false when it is absent or not a positive,
// finite number of seconds (ignored: the write timeout applies).
func scrapeTimeout(r *http.Request, max time.Duration) (time.Duration, bool) {
	v := strings.TrimSpace(r.Header.Get(scrapeTimeoutHeader))
	if v == "" || len(v) > 32 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || secs <= 0 {
		return 0, false
	}
	if max <= 0 || max > maxScrapeTimeout {
		max = maxScrapeTimeout
	}
	if secs >= max.Seconds() {
		return max, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

// ScrapeDeadline makes a scrape's X-Prometheus-Scrape-Timeout-Seconds its
// write deadline, capped by max (--web.write-timeout): Prometheus gives up
// on the scrape then, so writing on past it serves nobody, and a reader
// that stalls holds its connection and its buffers for its own timeout,
// not the server's 30 s.
func ScrapeDeadline(max time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d, ok := scrapeTimeout(r, max); ok {
			// An error means the connection cannot set deadlines;
			// the server's write timeout still applies.
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

const (
	// stallAfter: a scrape whose write has been blocked this long is
	// waiting on its reader, not using the CPU, and leaves its slot
	// (Limit). On loopback or a LAN a 64 KB write to a reader that reads
	// completes in well under a millisecond; at 500 ms the reader takes
	// less than 128 KB/s.
	stallAfter = 500 * time.Millisecond
	// slotWait is how long a scrape waits for a slot before it is
	// answered 503: longer than stallAfter, so a slot held by a reader
	// that stalls is free in time.
	slotWait = time.Second
)

// Limit lets at most n scrapes write the page at once (the CPU, and the
// buffers and gzip writer each holds) and answers a scrape that finds
// none free within a second with 503. A scrape whose write has been
// blocked on its reader for half a second no longer counts against the n:
// it moves to an allowance of n more for scrapes waiting on slow readers,
// so ten readers that send a request and never read cannot keep the page
// from Prometheus until their write timeout; a reader that stalls while
// that allowance is full is cut off at once. So at most 2n scrapes hold
// buffers at any time, as before at most n did. n <= 0 is no limit.
func Limit(n int, h http.Handler) http.Handler {
	if n <= 0 {
		return h
	}
	l := &limiter{active: make(chan struct{}, n), stalled: make(chan struct{}, n)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.acquire(r) {
			http.Error(w, "too many concurrent scrapes; try again later", http.StatusServiceUnavailable)
			return
		}
		s := &slot{l: l, rc: http.NewResponseController(w)}
		s.timer = time.AfterFunc(time.Hour, s.stall)
		s.timer.Stop()
		defer s.release()
		h.ServeHTTP(&slotWriter{ResponseWriter: w, s: s}, r)
	})
}

// limiter is Limit's two allowances: scrapes writing, and scrapes waiting
// on a stalled reader.
type limiter struct {
	active, stalled chan struct{}
}

// acquire takes a writing slot, waiting up to slotWait for one.
func (l *limiter) acquire(r *http.Request) bool {
	select {
	case l.active <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case l.active <- struct{}{}:
		return true
	case <-t.C:
	case <-r.Context().Done():
	}
	return false
}

// The states of a slot.
const (
	slotWriting = iota // counts in active
	slotStalled        // counts in stalled
	slotCut            // counts in active until the handler returns
	slotDone           // released
)

// slot is one scrape's place in the limiter.
type slot struct {
	l     *limiter
	rc    *http.ResponseController
	timer *time.Timer // fires stall while a write is blocked
	mu    sync.Mutex
	state int
}

// stall moves a scrape whose write is blocked to the stalled allowance,
// or, when that is full, cuts its connection (its blocked write fails
// and the handler returns).
func (s *slot) stall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != slotWriting {
		return
	}
	select {
	case s.l.stalled <- struct{}{}:
		s.state = slotStalled
		<-s.l.active
	default:
		s.state = slotCut
		_ = s.rc.SetWriteDeadline(time.Now())
	}
}

// release gives back what the scrape holds, once its handler returned.
func (s *slot) release() {
	s.timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case slotWriting, slotCut:
		<-s.l.active
	case slotStalled:
		<-s.l.stalled
	}
	s.state = slotDone
}

// slotWriter times each write to the connection: one blocked for
// stallAfter is a stalled reader (slot.stall).
type slotWriter struct {
	http.ResponseWriter
	s *slot
}

func (w *slotWriter) Write(p []byte) (int, error) {
	w.s.timer.Reset(stallAfter)
	n, err := w.ResponseWriter.Write(p)
	w.s.timer.Stop()
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *slotWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
