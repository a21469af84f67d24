// Package app wires the handler together from its configuration: the store
// (embedded bbolt or Cosmos DB), the partition scheme, the service, the HTTP
// router, the payload-mode functions and, standalone, the change-feed pump.
// handler/main.go only runs it; tests run it in-process.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/todoaudit/todo/audit/pump"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/cosmos"
	"github.com/todoaudit/todo/hotkeys"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/sequence"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// App is a running handler.
type App struct {
	cfg    *config.Config
	opts   *Options
	log    *slog.Logger
	ln     net.Listener
	server *http.Server

	handler atomic.Pointer[http.Handler]
	store   store.Store
	pump    *pump.Pump

	cancel context.CancelFunc
	wg     sync.WaitGroup
	ready  chan error
}

// ReconcileEvery is how often the standalone pump reconciles history.
const ReconcileEvery = 10 * time.Minute

// Options adjust how the app is wired; nil means none.
type Options struct {
	// Cosmos adjusts the Cosmos DB adapter's configuration before it
	// opens (tests install a transport here).
	Cosmos func(*cosmos.Config)
}

// Start listens at once, so the host's readiness poll of GET / succeeds
// within milliseconds, then opens the store; API requests get 503 until it
// is open. Wait reports how opening went.
func Start(cfg *config.Config, log *slog.Logger, o *Options) (*App, error) {
	if o == nil {
		o = &Options{}
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.ListenAddr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &App{cfg: cfg, log: log, opts: o, ln: ln, cancel: cancel, ready: make(chan error, 1)}
	var starting http.Handler = http.HandlerFunc(a.starting)
	a.handler.Store(&starting)
	a.server = &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*a.handler.Load()).ServeHTTP(w, r) }),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if err := a.server.Serve(httpapi.Listener(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("server stopped", "error", err.Error())
		}
	}()
	go func() { a.ready <- a.open(ctx) }()
	return a, nil
}

// starting answers while the store opens: GET / is ready, the rest 503.
func (a *App) starting(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/" {
		_, _ = w.Write([]byte(`{"status":"starting"}` + "\n"))
		return
	}
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"type":"urn:todoaudit:problem:unavailable","title":"Service Unavailable","status":503,"detail":"the handler is starting"}` + "\n"))
}

// Wait blocks until the store is open (nil) or failed to open.
func (a *App) Wait() error { return <-a.ready }

// Addr is the address the handler listens on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// containers returns the specs of the three containers.
func containers(cfg *config.Config) ([]store.ContainerSpec, error) {
	paths, err := partition.Paths(cfg.Scheme)
	if err != nil {
		return nil, err
	}
	perItem := -1
	return []store.ContainerSpec{
		{Name: cfg.TodoContainer, PartitionKeyPaths: paths, DefaultTTL: &perItem},
		{Name: cfg.AuditContainer, PartitionKeyPaths: partition.AuditKeyPaths},
		{Name: cfg.LeasesContainer, PartitionKeyPaths: partition.LeaseKeyPaths},
	}, nil
}

func (a *App) openStore(ctx context.Context, specs []store.ContainerSpec) (store.Store, string, error) {
	if a.cfg.Store == "cosmos" {
		c := cosmos.Config{
			Endpoint: a.cfg.CosmosEndpoint, Key: a.cfg.CosmosKey, Credential: a.cfg.CosmosCredential,
			ClientID: a.cfg.CosmosClientID, Database: a.cfg.Database, Containers: specs,
		}
		if a.opts.Cosmos != nil {
			a.opts.Cosmos(&c)
		}
		s, err := cosmos.Open(ctx, c)
		return s, "cosmos", err
	}
	s, err := bolt.Open(a.cfg.DataDir, specs, nil)
	return s, "embedded", err
}

func (a *App) open(ctx context.Context) error {
	specs, err := containers(a.cfg)
	if err != nil {
		return err
	}
	st, storeName, err := a.openStore(ctx, specs)
	if err != nil {
		return err
	}
	a.store = st
	// Every store call is also counted per logical partition, for the live
	// view of hot partitions.
	hot := hotkeys.NewRecorder(0, 0)
	st = hotkeys.Wrap(st, hot)
	var cs [3]store.Container
	for i, spec := range specs {
		if cs[i], err = st.Container(ctx, spec.Name); err != nil {
			return err
		}
	}
	todos, auditC, leases := cs[0], cs[1], cs[2]
	scheme, err := partition.New(a.cfg.Scheme, a.cfg.SyntheticBuckets, sequence.New(todos))
	if err != nil {
		return err
	}
	svc := service.New(scheme, todos, auditC, &service.Options{VersionTTL: a.cfg.VersionTTL})
	auth, err := httpapi.NewAuthenticator(a.cfg.AuthMode, a.cfg.SingleUserID)
	if err != nil {
		return err
	}
	auditTrigger, err := trigger.New(a.log)
	if err != nil {
		return err
	}
	if err := a.finishMoves(ctx, svc); err != nil {
		return err
	}
	rec := &reconcile.Reconciler{Todos: todos, Audit: auditC, Log: a.log, FinishMove: svc.FinishMove}
	h := httpapi.New(httpapi.Config{
		Service:      svc,
		Auth:         auth,
		MaxBodyBytes: a.cfg.MaxBodyBytes,
		Ping:         func(r *http.Request) error { return st.Ping(r.Context()) },
		Invocations: map[string]http.Handler{
			"AuditTrigger": auditTrigger,
			"Reconcile":    reconcile.Handler(rec, a.log),
		},
		Log:        a.log,
		StoreName:  storeName,
		Partitions: hot,
	})
	a.handler.Store(&h)
	a.log.Info("handler ready", "mode", string(a.cfg.Mode), "addr", a.Addr(), "store", storeName,
		"scheme", a.cfg.Scheme, "auth", a.cfg.AuthMode)

	if a.cfg.Mode == config.Standalone && a.cfg.AuditPump {
		p, err := pump.New(todos, auditC, leases, "http://"+a.Addr()+"/AuditTrigger", a.log)
		if err != nil {
			return err
		}
		a.pump = p
		a.wg.Add(2)
		go func() {
			defer a.wg.Done()
			if err := p.Run(ctx); err != nil {
				a.log.Error("audit pump stopped", "error", err.Error())
			}
		}()
		go func() {
			defer a.wg.Done()
			a.reconcileLoop(ctx, rec)
		}()
	}
	return nil
}

// finishMoves completes the moves an earlier process left half done, before
// the API serves, so that every todo is listed right after a restart. A
// failing store is retried a few times before start-up gives up.
func (a *App) finishMoves(ctx context.Context, svc *service.Service) error {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		mctx, meter := store.WithMeter(ctx)
		n, err := svc.FinishMoves(mctx)
		if n > 0 {
			a.log.Warn("finished interrupted moves", "moves", n, "ru", meter.Cost().Charge)
		}
		if err == nil {
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("finishing interrupted moves: %w", err)
		}
		a.log.Error("finishing interrupted moves failed; retrying", "error", err.Error(), "attempt", attempt)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// reconcileLoop refills history at start and then periodically.
func (a *App) reconcileLoop(ctx context.Context, rec *reconcile.Reconciler) {
	t := time.NewTicker(ReconcileEvery)
	defer t.Stop()
	for {
		if _, err := rec.Run(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("reconcile failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// DrainAudit delivers every pending change to the audit container now
// (standalone only), for tests and tools.
func (a *App) DrainAudit(ctx context.Context) error {
	if a.pump == nil {
		return errors.New("no audit pump in this mode")
	}
	return a.pump.Drain(ctx)
}

// Close shuts down gracefully: in-flight requests finish, the pump stops,
// the store closes.
func (a *App) Close(ctx context.Context) error {
	err := a.server.Shutdown(ctx)
	a.cancel()
	a.wg.Wait()
	if a.store != nil {
		err = errors.Join(err, a.store.Close())
	}
	return err
}
