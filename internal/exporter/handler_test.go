package exporter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Limit serves n requests at once and answers the next one 503 once it
// has waited slotWait for a slot; a slot freed serves again.
func TestLimit(t *testing.T) {
	release := make(chan struct{})
	var entered sync.WaitGroup
	entered.Add(2)
	h := Limit(2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered.Done()
			<-release
		}
		w.Write([]byte("page"))
	}))
	codes := make(chan int, 2)
	for range 2 {
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/hold", nil))
			codes <- rec.Code
		}()
	}
	entered.Wait()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("third request while two are served: %d, want 503", rec.Code)
	}
	close(release)
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("held request: %d", c)
		}
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 || rec.Body.String() != "page" {
		t.Errorf("after the slots freed: %d %q", rec.Code, rec.Body.String())
	}
	// No limit: many requests at once are all served.
	open := make(chan struct{})
	var in sync.WaitGroup
	in.Add(5)
	unlimited := Limit(0, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { in.Done(); <-open }))
	done := make(chan int, 5)
	for range 5 {
		go func() {
			rec := httptest.NewRecorder()
			unlimited.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			done <- rec.Code
		}()
	}
	in.Wait() // all five inside at once
	close(open)
	for range 5 {
		if c := <-done; c != 200 {
			t.Errorf("Limit(0): %d", c)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for in, want := range map[string]bool{
		"gzip": true, "gzip, deflate": true, "deflate, GZIP;q=0.5": true, "identity": false, "": false,
		"gzip;q=0": false, "br, gzip; q=0.000": false, "x-gzip": false,
	} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		if in != "" {
			r.Header.Set("Accept-Encoding", in)
		}
		if got := acceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", in, got, want)
		}
	}
}

// The scrape timeout header: seconds as Prometheus writes them, capped by
// the write timeout; anything else is ignored.
func TestScrapeTimeout(t *testing.T) {
	for _, tc := range []struct {
		header string
		max    time.Duration
		want   time.Duration
		ok     bool
	}{
		{"2", 30 * time.Second, 2 * time.Second, true},
		{"9.5", 30 * time.Second, 9500 * time.Millisecond, true},
		{" 10 ", 30 * time.Second, 10 * time.Second, true},
		{"60", 30 * time.Second, 30 * time.Second, true},
		{"1e300", 30 * time.Second, 30 * time.Second, true},
		{"1e300", 0, time.Hour, true},
		{"5", 0, 5 * time.Second, true},
		{"", 30 * time.Second, 0, false},
		{"0", 30 * time.Second, 0, false},
		{"-1", 30 * time.Second, 0, false},
		{"NaN", 30 * time.Second, 0, false},
		{"+Inf", 30 * time.Second, 0, false},
		{"10s", 30 * time.Second, 0, false},
		{"0x10", 30 * time.Second, 0, false},
		{strings.Repeat("1", 40), 30 * time.Second, 0, false},
	} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		if tc.header != "" {
			r.Header.Set(scrapeTimeoutHeader, tc.header)
		}
		got, ok := scrapeTimeout(r, tc.max)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q (max %s): %s %v, want %s %v", tc.header, tc.max, got, ok, tc.want, tc.ok)
		}
	}
}
