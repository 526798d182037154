package exporter

import (
	"bufio"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Handler serves /metrics in the Prometheus text format: reg's metrics
// (the Go runtime, the process and each gather's health, few and read at
// scrape time) through client_golang's encoder, then the lag families of
// cols as their latest gather wrote them (WriteText). A scrape costs
// copying bytes, whatever the number of series. The text is not
// compressed: a scrape over loopback or a LAN does not need it, and
// compressing 90 MB per scrape would cost more than serving it.
func Handler(reg prometheus.Gatherer, cols ...*Collector) http.Handler {
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mfs, err := reg.Gather()
		if err != nil {
			http.Error(w, "gathering metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", string(format))
		bw := bufio.NewWriterSize(w, 64<<10)
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
