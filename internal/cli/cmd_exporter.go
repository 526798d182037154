package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/admin"
	"github.com/offsetctl/offsetctl/exporter"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/inputfile"
)

type exporterFlags struct {
	sel             groupSelect
	listen          string
	interval        time.Duration
	rateWindow      time.Duration
	timeLag         bool
	isolation       string
	tlsCert, tlsKey string
	basicAuthFile   string
}

func (a *app) exporterCmd() *cobra.Command {
	var f exporterFlags
	cmd := &cobra.Command{
		Use:   "exporter [GROUP... | --all-groups | --regex PATTERN...]",
		Short: "Serve consumer-group lag as Prometheus metrics on /metrics",
		Long: `Serve consumer-group lag as Prometheus metrics.

The exporter gathers on its own interval (the same requests as lag) and
serves the latest result on /metrics, so scrapes never reach Kafka. Metric
names and labels are kafka_exporter's (kafka_consumergroup_lag, ..._lag_sum,
..._current_offset, ..._members, kafka_topic_partition_current_offset and
..._oldest_offset), plus the exact time lag (kafka_consumergroup_lag_seconds,
read from the log), consume and produce rates, the catch-up ETA
(kafka_consumergroup_catchup_seconds = lag / (consume rate − produce rate),
absent with kafka_consumergroup_falling_behind 1 when the group does not
gain), and the exporter's own health (offsetctl_gather_*). A failed gather
keeps the previous values and shows in offsetctl_gather_errors_total and
offsetctl_snapshot_age_seconds, never as zero lag. /healthz answers 200
while the process serves.

With --profile a,b each profile is one cluster with a gather loop of its
own and a cluster="NAME" label; one failing cluster does not blank the
others. Without GROUP arguments every consumer group is exported. The
exporter stops cleanly on SIGTERM or Ctrl-C (exit 0).`,
		Example: `  offsetctl exporter
  offsetctl exporter --listen 127.0.0.1:9308 --interval 30s --regex 'billing-.*' --exclude '.*-test'
  offsetctl exporter --profile prod-eu,prod-us
  offsetctl exporter --web-tls-cert web.crt --web-tls-key web.key --web-basic-auth-file scrapers.htpasswd`,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := a.exporterSetup(cmd, args, f)
			if err != nil {
				return err
			}
			return run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	f.sel.flags(fl, "every consumer group (the default without GROUP arguments)")
	fl.StringVar(&f.listen, "listen", ":9308", "address to serve /metrics and /healthz on")
	fl.DurationVar(&f.interval, "interval", 15*time.Second, "time between gathers (a gather is cut at this interval)")
	fl.DurationVar(&f.rateWindow, "rate-window", 0, "span of the consume and produce rates (default 4 × --interval)")
	fl.BoolVar(&f.timeLag, "time-lag", true, "read kafka_consumergroup_lag_seconds from the log (one record per lagging partition whose position moved)")
	fl.StringVar(&f.isolation, "isolation", "uncommitted", "log end: uncommitted (high watermark) or committed (last stable offset)")
	fl.StringVar(&f.tlsCert, "web-tls-cert", "", "serve HTTPS with this certificate (PEM; with --web-tls-key)")
	fl.StringVar(&f.tlsKey, "web-tls-key", "", "private key of --web-tls-cert (PEM)")
	fl.StringVar(&f.basicAuthFile, "web-basic-auth-file", "", "require HTTP basic auth for /metrics: USER:BCRYPT-HASH lines, as htpasswd -nbB prints")
	return cmd
}

// exporterTarget is one cluster to export.
type exporterTarget struct {
	name string // profile name; "" for the one cluster without --profile
	col  *exporter.Collector
}

// exporterSetup checks the flags and builds the collectors and the HTTP
// server; everything that can be bad input fails here, before serving.
func (a *app) exporterSetup(cmd *cobra.Command, args []string, f exporterFlags) (func(context.Context) error, error) {
	req, err := exporterRequest(args, f)
	if err != nil {
		return nil, err
	}
	if f.interval < time.Second {
		return nil, exitcode.Usagef("--interval must be at least 1s, got %s", f.interval)
	}
	if err := checkListen(f.listen); err != nil {
		return nil, err
	}
	if f.rateWindow < 0 {
		return nil, exitcode.Usagef("--rate-window must not be negative")
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, exitcode.Usagef("--web-tls-cert and --web-tls-key go together")
	}
	var auth exporter.BasicAuth
	if f.basicAuthFile != "" {
		data, err := inputfile.Read(f.basicAuthFile, inputfile.ConfigLimit, a.timeout)
		if err == nil {
			auth, err = exporter.ParseBasicAuth(data)
		}
		if err != nil {
			return nil, exitcode.Usagef("--web-basic-auth-file: %v", err)
		}
	}
	targets, err := a.exporterTargets(req, f)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cols := make([]*exporter.Collector, len(targets))
	for i, t := range targets {
		r := prometheus.Registerer(reg)
		if t.name != "" {
			r = prometheus.WrapRegistererWith(prometheus.Labels{"cluster": t.name}, reg)
		}
		r.MustRegister(t.col)
		cols[i] = t.col
	}
	mux := http.NewServeMux()
	metrics := exporter.Handler(reg, cols...)
	if auth != nil {
		metrics = auth.Wrap(metrics)
	}
	mux.Handle("/metrics", metrics)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if f.tlsCert != "" {
		// Loaded now, so a bad pair is bad input before anything serves.
		pair, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			ln.Close()
			return nil, exitcode.Usagef("--web-tls-cert/--web-tls-key: %v", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	a.infof("offsetctl: exporter serving %s://%s/metrics (%d cluster(s), every %s)", scheme, ln.Addr(), len(targets), f.interval)
	return func(ctx context.Context) error { return serveExporter(ctx, srv, ln, targets) }, nil
}

// checkListen refuses a --listen that is not HOST:PORT or :PORT as bad
// input (exit 2) before anything serves; a port in use or an address not
// on this machine stays an operational failure (exit 1) from Listen. The
// value is never echoed (net's errors quote it).
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return exitcode.Usagef("--listen: want HOST:PORT or :PORT (e.g. :9308)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return exitcode.Usagef("--listen: the port must be a number from 0 to 65535")
	}
	return nil
}

// exporterRequest turns the group selection into a gather request; with
// no selection every group is exported.
func exporterRequest(args []string, f exporterFlags) (admin.GatherRequest, error) {
	iso, err := admin.ParseIsolation(f.isolation)
	if err != nil {
		return admin.GatherRequest{}, exitcode.Flag("--isolation", err)
	}
	sel, err := f.sel.resolve(args, true)
	if err != nil {
		return admin.GatherRequest{}, err
	}
	return admin.GatherRequest{Groups: sel.Groups, AllGroups: sel.All, Match: sel.Match, Isolation: iso, NoLeaderWait: true}, nil
}

// exporterTargets resolves one connection per --profile entry (or the one
// connection of the usual flags).
func (a *app) exporterTargets(req admin.GatherRequest, f exporterFlags) ([]exporterTarget, error) {
	opts := exporter.Options{Interval: f.interval, Request: req, TimeLag: f.timeLag, RateWindow: f.rateWindow, Now: a.now}
	if a.profile == "" {
		cfg, err := a.clusterConfig()
		if err != nil {
			return nil, err
		}
		return []exporterTarget{{col: exporter.New(cfg, opts)}}, nil
	}
	var out []exporterTarget
	seen := map[string]bool{}
	for i, name := range strings.Split(a.profile, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, exitcode.Usagef("--profile: item %d is empty", i+1)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		cfg, err := a.configFor(name)
		if err != nil {
			return nil, err
		}
		o := opts
		o.Cluster = name
		out = append(out, exporterTarget{name: name, col: exporter.New(cfg, o)})
	}
	return out, nil
}

// serveExporter runs the gather loops and the server until ctx ends, then
// shuts both down: a SIGTERM is a clean stop (exit 0).
func serveExporter(ctx context.Context, srv *http.Server, ln net.Listener, targets []exporterTarget) error {
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Add(1)
		go func() { defer wg.Done(); t.col.Run(ctx) }()
	}
	served := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
	}
	wg.Wait()
	return err
}
