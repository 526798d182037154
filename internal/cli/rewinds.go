package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/offsetctl/offsetctl/internal/audit"
	"github.com/offsetctl/offsetctl/internal/cluster"
	"github.com/offsetctl/offsetctl/internal/health"
	"github.com/offsetctl/offsetctl/internal/safetext"
)

// auditRewinds explains rewinds by the resets in offsetctl's audit log,
// for lag --status, lag --watch --status and the exporter alike (a watch
// or an exporter runs for hours and sees resets made meanwhile): the log
// is read again at a rewind when it changed since it was last read (size
// or modification time). A log that cannot be read explains nothing (said
// once on stderr, after what); one that does not exist yet records no
// reset, and is not warned of. One value serves every cluster a command
// judges (the exporter's profiles): each gets its own explainer (For).
type auditRewinds struct {
	a    *app
	what string

	mu sync.Mutex
	// entries is the log as last read (nil: none yet), seen its file's
	// state then; byCluster the explainers made from it, per cluster id.
	entries   []audit.Entry
	seen      os.FileInfo
	byCluster map[string]health.Explainer
	warned    bool
}

func (a *app) liveAuditExplainer(what string) *auditRewinds {
	return &auditRewinds{a: a, what: what}
}

// For is the explainer of one cluster, whose id clusterID says (asked at
// the first rewind): only the entries recorded on that cluster explain its
// rewinds (audit.RewindExplainer), and none does while its id is unknown.
func (r *auditRewinds) For(clusterID func() (string, error)) health.Explainer {
	var idWarned bool
	return func(rw health.Rewind) (string, bool) {
		id, err := clusterID()
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil && !idWarned {
			idWarned = true
			r.a.warnf("%s: the cluster's id cannot be read, so no rewind is explained by a reset (an audit entry explains rewinds on its own cluster only): %s", r.what, safetext.Text(err.Error()))
		}
		if !r.refresh() || err != nil {
			return "", false
		}
		explain, ok := r.byCluster[id]
		if !ok {
			explain = audit.RewindExplainer(r.entries, id)
			r.byCluster[id] = explain
		}
		return explain(rw)
	}
}

// refresh reads the log again when it changed since it was last read, and
// says whether there are entries to explain with (r.mu held).
func (r *auditRewinds) refresh() bool {
	path, err := r.a.auditPath()
	var fi os.FileInfo
	if err == nil {
		fi, err = os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			// No log yet: no reset recorded, nothing to explain
			// and nothing to warn of (it is read once it exists).
			r.entries, r.seen = nil, nil
			return false
		}
	}
	if err == nil && (r.seen == nil || fi.Size() != r.seen.Size() || !fi.ModTime().Equal(r.seen.ModTime())) {
		var entries []audit.Entry
		if entries, err = audit.ReadFile(path); err == nil {
			r.entries, r.seen, r.byCluster = entries, fi, map[string]health.Explainer{}
		}
	}
	if err != nil && !r.warned {
		r.warned = true
		r.a.warnf("%s: the audit log cannot be read, so no rewind is explained by a reset: %s", r.what, safetext.Text(err.Error()))
	}
	return r.entries != nil
}

// lazyClusterID returns the id of the cluster fetch reaches, asked when it
// is first needed (a rewind is rare: most runs never ask) and kept once
// known; a failed ask is tried again at the next rewind.
func lazyClusterID(timeout time.Duration, fetch func(context.Context) (string, error)) func() (string, error) {
	var (
		mu    sync.Mutex
		id    string
		known bool
	)
	return func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if known {
			return id, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		got, err := fetch(ctx)
		if err != nil {
			return "", err
		}
		id, known = got, true
		return id, nil
	}
}

// clusterIDOf fetches the id of the cluster adm is connected to.
func clusterIDOf(adm *cluster.Admin) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		m, err := adm.BrokerMetadata(ctx)
		return m.Cluster, err
	}
}

// clusterIDAt fetches the id of the cluster cfg reaches, on a connection
// of its own (the exporter's gatherers keep theirs to themselves).
func clusterIDAt(cfg cluster.Config) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		adm, err := cfg.NewAdmin()
		if err != nil {
			return "", err
		}
		defer adm.Close()
		return clusterIDOf(adm)(ctx)
	}
}
