package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/cobra"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/exitcode"
	"github.com/offsetctl/offsetctl/internal/exporter"
	"github.com/offsetctl/offsetctl/internal/inputfile"
	"github.com/offsetctl/offsetctl/internal/lag"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

type exporterFlags struct {
	sel             groupSelect
	listen          []string // --web.listen-address
	listenAlias     string   // --listen
	webConfig       string
	readTimeout     time.Duration
	writeTimeout    time.Duration
	idleTimeout     time.Duration
	maxRequests     int
	interval        time.Duration
	rateWindow      time.Duration
	timeLag         bool
	isolation       string
	tlsCert, tlsKey string
	basicAuthFile   string
	// health statuses from the rounds (docs/health.md)
	status           bool
	statusWindow     time.Duration
	statusPartitions bool
	commitSource     string
}

func (a *app) exporterCmd() *cobra.Command {
	var f exporterFlags
	cmd := &cobra.Command{
		Use:   "exporter [GROUP... | --all-groups | --regex PATTERN...]",
		Short: "Serve consumer-group lag as Prometheus metrics on /metrics",
		Long: `Serve consumer-group lag as Prometheus metrics.

The exporter gathers on its own interval (the same requests as lag) and serves
the latest result on /metrics, so scrapes never reach Kafka. Metric names and
labels are kafka_exporter's (kafka_consumergroup_lag, ..._lag_sum,
..._current_offset, ..._members, kafka_topic_partition_current_offset and
..._oldest_offset), plus the exact time lag (kafka_consumergroup_lag_seconds,
read from the log), consume and produce rates, the catch-up ETA
(kafka_consumergroup_catchup_seconds = lag / (consume rate − produce rate),
absent with kafka_consumergroup_falling_behind 1 when the group does not
gain), and the exporter's own health (offsetctl_gather_*). TLS, client
certificates, HTTP/2 and bcrypt basic auth come from --web.config.file, the
web configuration YAML of every Prometheus exporter (exporter-toolkit). A
failed gather keeps the previous values and shows in
offsetctl_gather_errors_total and offsetctl_snapshot_age_seconds, never as
zero lag. /healthz answers 200 while the process serves.

With --profile a,b each profile is one cluster with a gather loop of its
own and a cluster="NAME" label; one failing cluster does not blank the
others. Without GROUP arguments every consumer group and share group
(KIP-932) is exported. A named group that does not exist counts as a
group not read at every gather (offsetctl_consumergroup_missing). The
exporter stops cleanly on SIGTERM or Ctrl-C (exit 0).`,
		Example: `  offsetctl exporter
  offsetctl exporter --web.listen-address 127.0.0.1:9308 --interval 30s --regex 'billing-.*' --exclude '.*-test'
  offsetctl exporter --profile prod-eu,prod-us
  offsetctl exporter --web.config.file web-config.yml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := a.exporterSetup(cmd, args, f)
			if err != nil {
				return err
			}
			return run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	f.sel.flags(fl, "every consumer and share group (the default without GROUP arguments)")
	fl.StringArrayVar(&f.listen, "web.listen-address", []string{":9308"}, "address to serve /metrics and /healthz on (repeatable)")
	fl.StringVar(&f.listenAlias, "listen", "", "the same as --web.listen-address (the older name)")
	fl.StringVar(&f.webConfig, "web.config.file", "", "exporter-toolkit web configuration YAML: TLS, client certificates, HTTP/2, basic_auth_users")
	fl.DurationVar(&f.readTimeout, "web.read-timeout", 10*time.Second, "longest time to read a request")
	fl.DurationVar(&f.writeTimeout, "web.write-timeout", 30*time.Second, "longest time to write a response: a scraper that does not read is cut off then, or at its X-Prometheus-Scrape-Timeout-Seconds if sooner")
	fl.DurationVar(&f.idleTimeout, "web.idle-timeout", 60*time.Second, "how long an idle keep-alive connection stays open")
	fl.IntVar(&f.maxRequests, "web.max-requests", 10, "scrapes of /metrics writing at once; one whose reader stalls (0.5s) leaves its slot for an allowance of as many more, and one that finds none free within 1s is answered 503 (0: no limit)")
	fl.DurationVar(&f.interval, "interval", 15*time.Second, "time between gathers (a gather is cut at this interval)")
	fl.DurationVar(&f.rateWindow, "rate-window", 0, "span of the consume and produce rates (default 4 × --interval)")
	fl.BoolVar(&f.timeLag, "time-lag", true, "read kafka_consumergroup_lag_seconds from the log (one record per lagging partition whose position moved)")
	fl.StringVar(&f.isolation, "isolation", "uncommitted", "log end: uncommitted (high watermark) or committed (last stable offset)")
	fl.StringVar(&f.tlsCert, "web-tls-cert", "", "serve HTTPS with this certificate (PEM; with --web-tls-key; older than --web.config.file)")
	fl.StringVar(&f.tlsKey, "web-tls-key", "", "private key of --web-tls-cert (PEM)")
	fl.BoolVar(&f.status, "status", false, "judge each group's health from the rounds over --status-window, as Burrow does: kafka_consumergroup_status{status=OK|WARN|REWIND|STALL|STOP} (docs/health.md)")
	fl.DurationVar(&f.statusWindow, "status-window", 10*time.Minute, "with --status: the span of rounds judged (at least 2 × --interval)")
	fl.BoolVar(&f.statusPartitions, "status-partitions", false, "with --status: also kafka_consumergroup_partition_status per group-partition (5 series each)")
	enumVar(fl, &f.commitSource, "commit-source", "", exporter.SourcePoll, "where committed offsets come from: poll asks every group each round (OffsetFetch); offsets-topic tails __consumer_offsets (needs Describe and Read on it; a round then asks only ListGroups and the log offsets; no members series; docs/exporter.md)",
		enum{choices: []string{exporter.SourcePoll, exporter.SourceOffsetsTopic}, parse: parseCommitSource})
	fl.StringVar(&f.basicAuthFile, "web-basic-auth-file", "", "require HTTP basic auth for /metrics: USER:BCRYPT-HASH lines, as htpasswd -nbBC 10 prints (older than --web.config.file)")
	return cmd
}

// exporterTarget is one cluster to export.
type exporterTarget struct {
	name string // profile name; "" for the one cluster without --profile
	col  *exporter.Collector
}

// exporterSetup checks the flags and builds the collectors and the HTTP
// servers; everything that can be bad input fails here, before serving.
func (a *app) exporterSetup(cmd *cobra.Command, args []string, f exporterFlags) (func(context.Context) error, error) {
	req, err := exporterRequest(args, f)
	if err != nil {
		return nil, err
	}
	if f.interval < time.Second {
		return nil, exitcode.Usagef("--interval must be at least 1s, got %s", f.interval)
	}
	listen, listenFlag, err := listenAddresses(cmd, f, a.lookupListenHost)
	if err != nil {
		return nil, err
	}
	if f.rateWindow < 0 {
		return nil, exitcode.Usagef("--rate-window must not be negative")
	}
	if err := statusOnlyFlags(cmd, f); err != nil {
		return nil, err
	}
	if f.status && f.statusWindow < 2*f.interval {
		return nil, exitcode.Usagef("--status-window must span at least two rounds (2 × --interval = %s), got %s", 2*f.interval, f.statusWindow)
	}
	if f.status {
		if err := a.checkStatusAuditLog(); err != nil {
			return nil, err
		}
	}
	// net/http reads a zero timeout as none (an idle one as the read
	// timeout): 0s would drop the guard against slow and stalled clients
	// that docs/exporter.md promises, so a timeout must be positive.
	for _, t := range []struct {
		flag string
		d    time.Duration
	}{{"--web.read-timeout", f.readTimeout}, {"--web.write-timeout", f.writeTimeout}, {"--web.idle-timeout", f.idleTimeout}} {
		if t.d <= 0 {
			return nil, exitcode.Usagef("%s must be positive, got %s", t.flag, t.d)
		}
	}
	if f.maxRequests < 0 { // 0 is documented: no limit
		return nil, exitcode.Usagef("--web.max-requests must not be negative, got %d", f.maxRequests)
	}
	web, err := a.webConfig(f)
	if err != nil {
		return nil, err
	}
	targets, err := a.exporterTargets(req, f)
	if err != nil {
		web.cleanup()
		return nil, err
	}
	handler := a.exporterMux(targets, f.maxRequests, f.writeTimeout)
	lns, err := bindListeners(listenFlag, listen)
	if err != nil {
		web.cleanup()
		return nil, err
	}
	servers := make([]exporterServer, len(lns))
	for i, ln := range lns {
		// ErrorLog: net/http's own lines (a failed TLS handshake) go
		// through the command's stderr, free of control bytes, not the
		// process's.
		srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: f.readTimeout, WriteTimeout: f.writeTimeout, IdleTimeout: f.idleTimeout,
			ErrorLog: log.New(a.stderr, "offsetctl: ", 0)}
		servers[i] = exporterServer{srv: srv, ln: ln}
	}
	// Said only once every address is bound: a line saying "serving"
	// followed by a bind error was a lie to whoever reads the log.
	for _, s := range servers {
		a.infof("offsetctl: exporter serving %s://%s/metrics (%d cluster(s), every %s)", web.scheme(), s.ln.Addr(), len(targets), f.interval)
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return func(ctx context.Context) error {
		defer web.cleanup()
		return serveExporter(ctx, servers, web.path, logger, targets)
	}, nil
}

// statusOnlyFlags refuses --status-window and --status-partitions without
// --status, naming only the ones given: a line that names a flag the user
// did not type sends them looking for it.
func statusOnlyFlags(cmd *cobra.Command, f exporterFlags) error {
	if f.status {
		return nil
	}
	var given []string
	if cmd.Flags().Changed("status-window") {
		given = append(given, "--status-window")
	}
	if f.statusPartitions {
		given = append(given, "--status-partitions")
	}
	switch len(given) {
	case 0:
		return nil
	case 1:
		return exitcode.Usagef("%s goes with --status", given[0])
	}
	return exitcode.Usagef("%s go with --status", strings.Join(given, " and "))
}

// exporterMux is /metrics (its write deadline the scrape's timeout, behind
// the concurrency limit) and /healthz.
func (a *app) exporterMux(targets []exporterTarget, maxRequests int, writeTimeout time.Duration) http.Handler {
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
	mux.Handle("/metrics", exporter.ScrapeDeadline(writeTimeout, exporter.Limit(maxRequests, exporter.Handler(reg, cols...))))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	return mux
}

// listenAddresses is --web.listen-address, or --listen (its older name),
// and the flag's name. An address given twice, or two that overlap (the
// same port on one address, host names resolved with lookup, or one of
// them every address: exporter.CheckListen), is bad input (exit 2), said
// before anything is bound: the second bind would fail on the first's
// socket.
func listenAddresses(cmd *cobra.Command, f exporterFlags, lookup exporter.LookupFunc) ([]string, string, error) {
	listen, flag := f.listen, "--web.listen-address"
	if cmd.Flags().Changed("listen") {
		if cmd.Flags().Changed("web.listen-address") {
			return nil, "", exitcode.Usagef("--listen is the older name of --web.listen-address: give one of them")
		}
		listen, flag = []string{f.listenAlias}, "--listen"
	}
	for _, addr := range listen {
		if err := checkListen(flag, addr); err != nil {
			return nil, "", err
		}
	}
	if err := exporter.CheckListen(cmd.Context(), listen, lookup); err != nil {
		return nil, "", exitcode.Usagef("%s: %v", flag, err)
	}
	return listen, flag, nil
}

// lookupListenHost resolves the host name of a listen address, within
// --timeout.
func (a *app) lookupListenHost(ctx context.Context, host string) ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// bindListeners listens on every address before anything is said to
// serve. Overlapping addresses were refused before (listenAddresses); a
// bind that still meets an earlier one of the same port (a name that
// resolved otherwise at bind time) is bad input too (exit 2). An address
// another process holds, or not on this machine, is an operational
// failure (exit 1), named in the error. Nothing stays bound after an
// error.
func bindListeners(flag string, addrs []string) ([]net.Listener, error) {
	var lns []net.Listener
	for i, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			lns = append(lns, ln)
			continue
		}
		for _, l := range lns {
			l.Close()
		}
		cause := err
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			cause = op.Err // net's text repeats the address
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			for _, prev := range addrs[:i] {
				if listenOverlap(prev, addr) {
					return nil, exitcode.Usagef("%s: %s and %s overlap (the same port on the same address): give one of them", flag, safetext.Text(prev), safetext.Text(addr))
				}
			}
		}
		return nil, fmt.Errorf("%s %s: cannot listen: %s", flag, safetext.Text(addr), safetext.Text(cause.Error()))
	}
	return lns, nil
}

// listenOverlap reports whether two HOST:PORT addresses bind the same
// port where they meet: the same host, or one of them every address.
func listenOverlap(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	if pa != pb || pa == "0" {
		return false
	}
	every := func(h string) bool { ip := net.ParseIP(h); return h == "" || ip != nil && ip.IsUnspecified() }
	return strings.EqualFold(ha, hb) || every(ha) || every(hb)
}

// webSetup is the web config the servers read: --web.config.file, or one
// written from the older flags (removed by cleanup), or none.
type webSetup struct {
	path string
	tls  bool
	temp bool
}

func (w webSetup) scheme() string {
	if w.tls {
		return "https"
	}
	return "http"
}

func (w webSetup) cleanup() {
	if w.temp {
		os.Remove(w.path)
	}
}

// webConfig checks --web.config.file (the toolkit's own validation, then
// the bcrypt costs), or turns --web-tls-cert/--web-tls-key and
// --web-basic-auth-file into the same YAML in a private temporary file.
func (a *app) webConfig(f exporterFlags) (webSetup, error) {
	legacy := f.tlsCert != "" || f.tlsKey != "" || f.basicAuthFile != ""
	if f.webConfig != "" {
		if legacy {
			return webSetup{}, exitcode.Usagef("--web.config.file replaces --web-tls-cert, --web-tls-key and --web-basic-auth-file: give it alone (docs/exporter.md shows the YAML)")
		}
		return a.checkWebConfig(f.webConfig)
	}
	if !legacy {
		return webSetup{}, nil
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return webSetup{}, exitcode.Usagef("--web-tls-cert and --web-tls-key go together")
	}
	var auth exporter.BasicAuth
	if f.basicAuthFile != "" {
		data, err := inputfile.Read(f.basicAuthFile, inputfile.ConfigLimit, a.timeout)
		if err == nil {
			auth, err = exporter.ParseBasicAuth(data)
		}
		if err != nil {
			return webSetup{}, exitcode.Usagef("--web-basic-auth-file: %v", err)
		}
	}
	if f.tlsCert != "" {
		// Loaded now, so a bad pair is bad input before anything serves.
		if _, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey); err != nil {
			return webSetup{}, exitcode.Usagef("--web-tls-cert/--web-tls-key: %v", err)
		}
	}
	return a.writeLegacyWebConfig(f, auth)
}

// writeLegacyWebConfig writes the older flags' web config to a 0600 file.
func (a *app) writeLegacyWebConfig(f exporterFlags, auth exporter.BasicAuth) (webSetup, error) {
	cert, key := f.tlsCert, f.tlsKey
	if cert != "" {
		var err error
		if cert, err = filepath.Abs(cert); err == nil {
			key, err = filepath.Abs(key)
		}
		if err != nil {
			return webSetup{}, err
		}
	}
	data, err := exporter.LegacyWebConfig(cert, key, auth)
	if err != nil {
		return webSetup{}, err
	}
	if info, err := exporter.WebUsers(data); err == nil {
		a.warnCosts("--web-basic-auth-file", info)
	}
	tmp, err := os.CreateTemp("", "offsetctl-web-*.yml")
	if err != nil {
		return webSetup{}, fmt.Errorf("writing the web config of --web-tls-cert/--web-basic-auth-file: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	w := webSetup{path: tmp.Name(), tls: cert != "", temp: true}
	if err != nil {
		w.cleanup()
		return webSetup{}, fmt.Errorf("writing the web config of --web-tls-cert/--web-basic-auth-file: %w", err)
	}
	return w, nil
}

// yamlQuoted matches the values YAML errors quote, left out of messages
// (a misplaced key or password must not reach a log).
var yamlQuoted = regexp.MustCompile("`[^`]*`")

// checkWebConfig validates a --web.config.file before anything serves.
func (a *app) checkWebConfig(path string) (webSetup, error) {
	data, err := inputfile.Read(path, inputfile.ConfigLimit, a.timeout)
	if err != nil {
		return webSetup{}, exitcode.Usagef("--web.config.file: %v", err)
	}
	info, err := exporter.WebUsers(data)
	if err != nil {
		return webSetup{}, exitcode.Usagef("--web.config.file: %v", err)
	}
	if err := web.Validate(path); err != nil {
		msg := yamlQuoted.ReplaceAllString(strings.ReplaceAll(err.Error(), "\n", " "), "`…`")
		return webSetup{}, exitcode.Usagef("--web.config.file: %s", msg)
	}
	a.warnCosts("--web.config.file", info)
	return webSetup{path: path, tls: info.TLS}, nil
}

// warnCosts warns of users whose hash cost differs from the toolkit's hash
// for unknown users (a timing difference that tells user names apart).
func (a *app) warnCosts(flag string, info exporter.WebConfigInfo) {
	if len(info.OtherCost) == 0 {
		return
	}
	a.warnf("%s: %d user(s) have a bcrypt cost other than %d (first %s): a wrong password for them answers faster or slower than for an unknown user, which tells which user names exist; make the hashes with htpasswd -nbBC %d",
		flag, len(info.OtherCost), exporter.ToolkitUnknownUserCost, strconv.Quote(info.OtherCost[0]), exporter.ToolkitUnknownUserCost)
}

// checkListen refuses a --listen that is not HOST:PORT or :PORT as bad
// input (exit 2) before anything serves; a port in use or an address not
// on this machine stays an operational failure (exit 1) from Listen. The
// value is never echoed (net's errors quote it).
func checkListen(flag, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return exitcode.Usagef("%s: want HOST:PORT or :PORT (e.g. :9308)", flag)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return exitcode.Usagef("%s: the port must be a number from 0 to 65535", flag)
	}
	return nil
}

// exporterRequest turns the group selection into a gather request; with
// no selection every group is exported. Share groups (KIP-932) are
// selected by --regex and --all-groups as lag selects them, not only when
// named: a group left out has no series, which reads as no lag. They cost
// a ShareGroupDescribe and a DescribeShareGroupOffsets per coordinator of
// a batch that has any, and nothing when there are none.
func exporterRequest(args []string, f exporterFlags) (lag.GatherRequest, error) {
	iso, err := lag.ParseIsolation(f.isolation)
	if err != nil {
		return lag.GatherRequest{}, exitcode.Flag("--isolation", err)
	}
	sel, err := f.sel.resolve(args, true)
	if err != nil {
		return lag.GatherRequest{}, err
	}
	return lag.GatherRequest{Groups: sel.Groups, AllGroups: sel.All, Match: sel.Match, ShareGroups: true, Isolation: iso, NoLeaderWait: true}, nil
}

// exporterTargets resolves one connection per --profile entry (or the one
// connection of the usual flags).
func (a *app) exporterTargets(req lag.GatherRequest, f exporterFlags) ([]exporterTarget, error) {
	opts := exporter.Options{Interval: f.interval, Request: req, TimeLag: f.timeLag, RateWindow: f.rateWindow, Now: a.now,
		Status: f.status, StatusWindow: f.statusWindow, StatusPartitions: f.statusPartitions, CommitSource: f.commitSource}
	var rewinds *auditRewinds
	if f.status {
		rewinds = a.liveAuditExplainer("exporter: status")
	}
	// The offsets topic's errors are said again when they change (its
	// warm-up, then a missing ACL); polling's once when gathers start
	// failing.
	opts.WarnChanges = f.commitSource == exporter.SourceOffsetsTopic
	if a.profile == "" {
		cfg, err := a.clusterConfig()
		if err != nil {
			return nil, err
		}
		a.gatherWarnings(&opts, "", a.secrets)
		if rewinds != nil {
			opts.Explain = rewinds.For(lazyClusterID(cfg.Timeout, clusterIDAt(cfg)))
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
		a.gatherWarnings(&o, name, a.secrets)
		if rewinds != nil {
			// Each cluster's rewinds by its own resets only.
			o.Explain = rewinds.For(lazyClusterID(cfg.Timeout, clusterIDAt(cfg)))
		}
		out = append(out, exporterTarget{name: name, col: exporter.New(cfg, o)})
	}
	return out, nil
}

// gatherWarnings says on stderr when a cluster's gathers start failing,
// with the cause (the connection's secrets redacted, control characters
// escaped), and when one is complete again: the metrics say it every
// scrape, but an operator reading the log of an exporter whose broker is
// down, frozen or mistyped saw nothing after "serving". A named group
// that does not exist (a typo, or deleted) is said when it starts being
// missing and when it exists, not at every round.
func (a *app) gatherWarnings(o *exporter.Options, cluster string, secrets []string) {
	who := "exporter"
	if cluster != "" {
		who = fmt.Sprintf("exporter: cluster %s", safetext.Name(cluster))
	}
	clean := func(s string) string { return safetext.Text(audit.RedactString(s, secrets)) }
	o.Warn = func(err error) {
		a.warnf("%s: gather: %s (the last values are served, marked stale, until a gather is complete)", who, clean(err.Error()))
	}
	o.Recovered = func(failed int) {
		a.notef("%s: gather: complete again after %d incomplete gather(s)", who, failed)
	}
	o.Missing = func(group string, missing bool, rounds int) {
		if missing {
			a.warnf("%s: named group %s does not exist (a typo, or deleted?): it has no lag to export; offsetctl_consumergroup_missing is 1 and every gather counts it in offsetctl_gather_group_errors until it exists", who, safetext.Arg(group))
			return
		}
		a.notef("%s: named group %s exists now (after %d gather(s) that found it missing)", who, safetext.Arg(group), rounds)
	}
}

// parseCommitSource checks --commit-source.
func parseCommitSource(s string) error {
	if s != exporter.SourcePoll && s != exporter.SourceOffsetsTopic {
		return fmt.Errorf("want %s or %s", exporter.SourcePoll, exporter.SourceOffsetsTopic)
	}
	return nil
}

// checkStatusAuditLog checks, for --status (lag, groups, the exporter),
// an audit log named by --audit-log or $OFFSETCTL_AUDIT_LOG before any
// request: one that cannot be a log (/dev/zero, a directory, a link) is
// bad input, exit 2, as for every command that reads the log; it was
// warned of only at the first rewind to explain, and the run exited 0.
// The default log is read as before: a problem there is a warning, as
// the user named no file.
func (a *app) checkStatusAuditLog() error {
	if !a.auditExplicit() {
		return nil
	}
	path, err := a.auditPath()
	if err != nil {
		return nil // said by the explainer, as before
	}
	return audit.CheckPath(path, true, false)
}

// exporterServer is one listener and its server.
type exporterServer struct {
	srv *http.Server
	ln  net.Listener
}

// serveExporter runs the gather loops and the servers until ctx ends, then
// shuts them down: a SIGTERM is a clean stop (exit 0). Each server is
// exporter-toolkit's web.Serve over the web config (TLS, basic auth).
func serveExporter(ctx context.Context, servers []exporterServer, webConfig string, logger *slog.Logger, targets []exporterTarget) error {
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Add(1)
		go func() { defer wg.Done(); t.col.Run(ctx) }()
	}
	served := make(chan error, len(servers))
	for _, s := range servers {
		go func() { served <- web.Serve(s.ln, s.srv, &web.FlagConfig{WebConfigFile: &webConfig}, logger) }()
	}
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	for _, s := range servers {
		if serr := s.srv.Shutdown(sctx); err == nil || errors.Is(err, http.ErrServerClosed) {
			err = serr
		}
	}
	cancel()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
