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
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/backfill"
	"github.com/todoaudit/todo/audit/pump"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/cosmos"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/httpapi/invocation"
	"github.com/todoaudit/todo/internal/backoff"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/partitionload"
	"github.com/todoaudit/todo/telemetry/storetrace"
	"github.com/todoaudit/todo/transparency"
	"github.com/todoaudit/todo/transparency/blobanchors"
	"github.com/todoaudit/todo/transparency/keyvault"
	"github.com/todoaudit/todo/verifypage"
	"github.com/todoaudit/todo/webapp"
)

// App is a running handler.
type App struct {
	cfg    *config.Config
	opts   *Options
	log    *slog.Logger
	ln     net.Listener
	server *http.Server
	health *health.Monitor

	handler atomic.Pointer[http.Handler]
	auth    *auth.Authenticator

	// Opening runs under openCtx, which Close cancels first; the background
	// work (pump, reconcile, health probe) under bgCtx, cancelled next.
	cancelOpen context.CancelFunc
	cancelBg   context.CancelFunc
	opened     chan struct{} // closed when opening has ended
	openErr    error         // why it failed; read only after opened is closed
	store      store.Store   // set by the opening goroutine before opened is closed
	pump       *pump.Pump
	integ      *transparency.Integrator // standalone, when the log is on
	reconciler *reconcile.Reconciler
	hot        *partitionload.Recorder // every store call counted per logical partition
	bg         sync.WaitGroup
	serving    chan struct{} // closed when the server has stopped
	fresh      freshConns
}

// freshConns are the connections accepted that have sent no request yet.
// http.Server.Shutdown waits up to 5 s for them, as if busy; Close drops
// them instead once the listener is closed and they have stayed quiet for
// freshGrace.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

const freshGrace = 250 * time.Millisecond

func (f *freshConns) track(c net.Conn, s http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s != http.StateNew {
		delete(f.conns, c)
		return
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	f.conns[c] = struct{}{}
}

func (f *freshConns) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
	}
}

// ReconcileEvery is how often the standalone pump reconciles history.
const ReconcileEvery = 10 * time.Minute

// The store health probe: how often it pings the store and how long one
// ping may take. A stall shows in /api/health within their sum.
const (
	probeEvery   = 2 * time.Second
	probeTimeout = 5 * time.Second
)

// openBackoff spaces out the attempts to open the store.
var openBackoff = backoff.Policy{Base: 200 * time.Millisecond, Max: 5 * time.Second}

// Options adjust how the app is wired; nil means none.
type Options struct {
	// Cosmos adjusts the Cosmos DB adapter's configuration before it
	// opens (tests install a transport here).
	Cosmos func(*cosmos.Config)
	// Wrap, when set, wraps the opened store (tests record the calls the
	// handler makes with it).
	Wrap func(store.Store) store.Store
	// Listener, when set, is served instead of listening on
	// cfg.ListenAddr.
	Listener net.Listener
	// Telemetry traces and measures the handler; nil records nothing.
	// The caller shuts it down after Close, which flushes it.
	Telemetry *telemetry.Telemetry
	// AuthClock, when set, is the clock the entra mode reads and waits on
	// (tests move a fake one on instead of waiting).
	AuthClock auth.Clock
	// OpenStore, when set, runs each attempt to open the store in place
	// of open, the configured opening, which it may call (tests make the
	// store slow to open, or fail).
	OpenStore func(ctx context.Context, open func(context.Context) (store.Store, error)) (store.Store, error)
}

// listenError says why the address could not be taken and, standalone,
// which setting chooses it; under the host the host chose the port.
func listenError(cfg *config.Config, err error) error {
	if cfg.Mode == config.Host {
		return fmt.Errorf("listen on %s (the Functions host's FUNCTIONS_CUSTOMHANDLER_PORT): %w", cfg.ListenAddr, err)
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: the address is in use by another process: stop it, or set LISTEN_ADDR to another address (make run LISTEN_ADDR=127.0.0.1:8080)", cfg.ListenAddr)
	}
	return fmt.Errorf("listen on %s (LISTEN_ADDR): %w", cfg.ListenAddr, err)
}

// Start listens at once, so the host's readiness poll of GET / (the web
// page, served from memory) succeeds within milliseconds, then opens the store in the background, retrying
// until STORE_OPEN_TIMEOUT. Requests that arrive meanwhile wait for it;
// /api/health answers 503 "starting" without waiting. Wait and Opened
// report how opening went.
func Start(cfg *config.Config, log *slog.Logger, o *Options) (*App, error) {
	if o == nil {
		o = &Options{}
	}
	if cfg.Mode == config.Host {
		if err := invocation.CheckPayloadLimit(cfg.MaxPayloadBytes); err != nil {
			return nil, err
		}
	}
	ln := o.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.ListenAddr); err != nil {
			return nil, listenError(cfg, err)
		}
	}
	bgCtx, cancelBg := context.WithCancel(context.Background())
	openCtx, cancelOpen := context.WithCancel(bgCtx)
	// Under entra the provider is discovered while the store opens.
	h := health.New(log)
	authn, err := auth.New(bgCtx, cfg.Auth, log, &auth.Options{Health: h, Clock: o.AuthClock})
	if err != nil {
		cancelOpen()
		cancelBg()
		ln.Close()
		return nil, err
	}
	a := &App{
		cfg: cfg, log: log, opts: o, ln: ln, health: h, auth: authn,
		cancelOpen: cancelOpen, cancelBg: cancelBg, opened: make(chan struct{}), serving: make(chan struct{}),
	}
	var starting http.Handler = http.HandlerFunc(a.starting)
	a.handler.Store(&starting)
	a.server = &http.Server{
		ConnState: a.fresh.track,
		Handler: verifypage.Handler(webapp.Handler(pageConfig(cfg),
			http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*a.handler.Load()).ServeHTTP(w, r) }))),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		defer close(a.serving)
		if err := a.server.Serve(httpapi.Listener(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("server stopped", "error", err.Error())
		}
	}()
	go func() {
		defer close(a.opened)
		a.openErr = a.open(openCtx, bgCtx)
	}()
	return a, nil
}

// pageConfig is what the web page is told of how its users sign in.
func pageConfig(cfg *config.Config) webapp.Config {
	c := webapp.Config{AuthMode: cfg.Auth.Mode}
	switch cfg.Auth.Mode {
	case auth.Dev:
		c.AdminUsers = cfg.Auth.AdminUsers
	case auth.Single:
		c.User = cfg.Auth.SingleUser
	case auth.Entra:
		c.Authority, c.ClientID, c.Scope = cfg.Auth.Issuer, cfg.WebClientID, cfg.WebScope
	}
	return c
}

// starting answers while the store opens (GET /, the host's readiness
// poll, is the web page's, answered at once in front of it): /api/health
// 503 "starting" at once, and every other request once the store is open,
// or 503 if it never opens.
func (a *App) starting(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/health" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"starting"}` + "\n"))
		return
	}
	select {
	case <-a.opened:
	case <-r.Context().Done():
		problem.Write(w, todo.Wrap(todo.Unavailable, r.Context().Err(), "the handler is starting; the request ended before the store opened"))
		return
	}
	if a.openErr != nil {
		problem.Write(w, todo.Wrap(todo.Unavailable, a.openErr, "the store is not available"))
		return
	}
	(*a.handler.Load()).ServeHTTP(w, r)
}

// Wait blocks until opening has ended: nil once the store is open and the
// API serves, otherwise why it failed (or that Close cancelled it).
func (a *App) Wait() error {
	<-a.opened
	return a.openErr
}

// Opened is closed when opening has ended; Wait then returns at once.
func (a *App) Opened() <-chan struct{} { return a.opened }

// Addr is the address the handler listens on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// storeSystem is the db.system attribute of each store's spans.
var storeSystem = map[string]string{"embedded": "bbolt", "cosmos": "cosmosdb"}

// openStore opens the configured store. A failed open gives a nil
// interface, not one holding a nil pointer that the abandoned-attempt
// clean-up would try to close.
func (a *App) openStore(ctx context.Context, specs []store.ContainerSpec) (store.Store, error) {
	var s store.Store
	var err error
	if a.cfg.Store == "cosmos" {
		c := cosmos.Config{
			Endpoint: a.cfg.CosmosEndpoint, Key: a.cfg.CosmosKey, Credential: a.cfg.CosmosCredential,
			ClientID: a.cfg.CosmosClientID, Database: a.cfg.Database, Containers: specs,
			Timeout:        a.cfg.StoreTimeout,
			TracerProvider: a.opts.Telemetry.TracerProvider(),
			// The probe point-reads the smallest container.
			ProbeContainer: a.cfg.LeasesContainer,
		}
		if a.opts.Cosmos != nil {
			a.opts.Cosmos(&c)
		}
		s, err = cosmos.Open(ctx, c)
	} else {
		// A write the disk refuses shows in health at once, before the
		// audit pump's failure it causes.
		s, err = bolt.Open(a.cfg.DataDir, specs, &bolt.Options{Log: a.log, OnFault: func(err error) { a.health.Report(health.StoreSource, err) }})
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// errClosed ends an opening that Close cancelled.
var errClosed = errors.New("the handler was closed while the store was opening")

// openRetrying opens the store, retrying with back-off until it opens, an
// error is permanent or STORE_OPEN_TIMEOUT passes. Each attempt has
// STORE_TIMEOUT to finish. The error names the last cause seen.
func (a *App) openRetrying(ctx context.Context, specs []store.ContainerSpec) (store.Store, error) {
	deadline, cancel := context.WithTimeout(ctx, a.cfg.StoreOpenTimeout)
	defer cancel()
	open := func(ctx context.Context) (store.Store, error) { return a.openStore(ctx, specs) }
	if o := a.opts.OpenStore; o != nil {
		configured := open
		open = func(ctx context.Context) (store.Store, error) { return o(ctx, configured) }
	}
	var cause error
	for n := 0; ; n++ {
		st, err := attempt(deadline, a.attemptTimeout(), open)
		switch {
		case err == nil:
			return st, nil
		case ctx.Err() != nil:
			return nil, errClosed
		case errors.Is(err, store.ErrPartitionKeyChanged):
			return nil, fmt.Errorf("PARTITION_SCHEME=%s does not match the partition keys the containers were created with; "+
				"set the scheme they were created with, or use new containers: %w", a.cfg.Scheme, err)
		case store.IsPermanent(err):
			return nil, err
		}
		// An attempt cut short by the overall deadline says less than the
		// failure before it.
		if cause == nil || deadline.Err() == nil {
			cause = err
		}
		if deadline.Err() != nil {
			return nil, fmt.Errorf("the %s store did not open within %s (STORE_OPEN_TIMEOUT): %w", a.cfg.Store, a.cfg.StoreOpenTimeout, cause)
		}
		delay := openBackoff.Delay(n)
		a.log.Warn("opening the store failed; retrying", "store", a.cfg.Store, "attempt", n+1, "retryIn", delay.String(), "error", err.Error())
		if backoff.Sleep(deadline, delay) != nil && ctx.Err() != nil {
			return nil, errClosed
		}
	}
}

// attemptTimeout bounds one attempt to open the store: STORE_TIMEOUT for
// Cosmos DB; the embedded store reads its whole file once to verify it (about
// a second per 400 MB), so it gets all of STORE_OPEN_TIMEOUT.
func (a *App) attemptTimeout() time.Duration {
	if a.cfg.Store == "embedded" {
		return a.cfg.StoreOpenTimeout
	}
	return a.cfg.StoreTimeout
}

// attemptGrace is how long an abandoned attempt may still finish, so that
// what it opened (a file lock) is released before Close returns.
const attemptGrace = 500 * time.Millisecond

// attempt runs open with a deadline of timeout. An open that ignores its
// context (the Cosmos SDK's first account read does) is abandoned when the
// deadline passes: whatever it opens later is closed.
func attempt(ctx context.Context, timeout time.Duration, open func(context.Context) (store.Store, error)) (store.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		st  store.Store
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := open(ctx)
		done <- result{st, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		select {
		case r = <-done:
		case <-time.After(attemptGrace):
			go func() {
				if r := <-done; r.st != nil {
					_ = r.st.Close()
				}
			}()
			return nil, fmt.Errorf("no answer within %s (STORE_TIMEOUT)", timeout)
		}
	}
	if r.err != nil && ctx.Err() != nil && errors.Is(r.err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("no answer within %s (STORE_TIMEOUT): %w", timeout, r.err)
	}
	return r.st, r.err
}

// open opens the store, then wires the API over it and, standalone, starts
// the pump; the background work runs under bg.
func (a *App) open(ctx, bg context.Context) error {
	st, cs, err := a.openContainers(ctx)
	if err != nil {
		return err
	}
	storeName := a.cfg.Store
	todos, auditC, leases := cs[0], cs[1], cs[2]
	scheme, err := partition.New(a.cfg.Scheme, a.cfg.SyntheticBuckets, partition.NewCounter(todos))
	if err != nil {
		return err
	}
	eraser := a.newEraser(todos, auditC, scheme)
	tel := a.opts.Telemetry
	svc := service.New(scheme, todos, auditC, &service.Options{VersionTTL: a.cfg.VersionTTL, OnErasure: eraser.Wake})
	auditTrigger := trigger.New(a.cfg.TodoContainer, a.log)
	auditTrigger.Telemetry = tel
	sweeper := &service.MoveSweeper{Todos: todos, Leases: leases, Finish: svc.FinishMove}
	if err := a.finishMoves(ctx, sweeper); err != nil {
		return err
	}
	tl, integ, err := a.transparencyLog(ctx, auditC, leases)
	if err != nil {
		return err
	}
	rec := a.newReconciler(todos, auditC, leases, svc, eraser, integ)
	a.reconciler = rec
	invocations, err := a.invocations(auditTrigger, rec, integ)
	if err != nil {
		return err
	}
	h := httpapi.New(httpapi.Config{
		Service:         svc,
		Auth:            a.auth,
		MaxBodyBytes:    a.cfg.MaxBodyBytes,
		StoreTimeout:    a.cfg.StoreTimeout,
		Health:          a.health.Status,
		Invocations:     invocations,
		Transparency:    tl,
		MaxPayloadBytes: a.cfg.MaxPayloadBytes,
		Log:             a.log,
		StoreName:       storeName,
		Partitions:      a.hot,
		Hosted:          a.cfg.Mode != config.Standalone,
		Telemetry:       tel,
		CORS:            httpapi.CORS{AllowedOrigins: a.cfg.CORSAllowedOrigins, AllowCredentials: a.cfg.CORSAllowCredentials},
	})
	// Erasures run in the background: at once when a stopped process left
	// one (or the start-up could not tell), when one is requested, and at
	// every reconcile interval.
	resume, err := eraser.Pending(ctx)
	if err != nil {
		a.log.Warn("could not read the erasures under way; trying to resume them now", "error", err.Error())
	}
	a.goBackground(func() { eraser.Loop(bg, ReconcileEvery, resume || err != nil) })
	a.health.Opened()
	a.handler.Store(&h)
	a.log.Info("handler ready", "mode", string(a.cfg.Mode), "addr", a.Addr(), "store", storeName,
		"scheme", a.cfg.Scheme, "auth", a.cfg.Auth.Mode)

	// The probe keeps the default priority: it measures what users get.
	a.goBackground(func() {
		a.health.Probe(bg, health.StoreSource, probeEvery, min(probeTimeout, a.cfg.StoreTimeout), st.Ping)
	})
	if a.cfg.Mode != config.Standalone {
		a.health.WatchAudit(func() health.Audit { return health.Audit{State: health.AuditHost} })
	}
	if a.cfg.Mode == config.Standalone && a.cfg.AuditPump {
		if err := a.startPump(bg, todos, auditC, leases, auditTrigger, rec, sweeper); err != nil {
			return err
		}
	}
	if a.cfg.Mode == config.Standalone && integ != nil {
		a.integ = integ
		a.goBackground(func() { a.integrateLoop(bg, integ) })
	}
	return nil
}

// openContainers opens the store, retrying, and its three containers
// (todos, audit, leases) through the decorators every call passes: the
// telemetry's and the per-partition load's.
func (a *App) openContainers(ctx context.Context) (st store.Store, cs [3]store.Container, err error) {
	specs, err := partition.Containers(a.cfg.Scheme, partition.ContainerNames{
		Todos: a.cfg.TodoContainer, Audit: a.cfg.AuditContainer, Leases: a.cfg.LeasesContainer})
	if err != nil {
		return nil, cs, err
	}
	st, err = a.openRetrying(ctx, specs)
	if err != nil {
		return nil, cs, err
	}
	a.store = st
	if a.opts.Wrap != nil {
		st = a.opts.Wrap(st)
	}
	tel := a.opts.Telemetry
	if tel.Enabled() {
		// The Cosmos SDK makes its own spans; the embedded store's come
		// from the decorator, which records every store's request units.
		st = storetrace.Wrap(st, tel, storetrace.Options{
			System: storeSystem[a.cfg.Store], Namespace: a.cfg.Database, Spans: a.cfg.Store != "cosmos"})
	}
	// Every store call is also counted per logical partition, for the live
	// view of hot partitions.
	a.hot = partitionload.NewRecorder(0, 0)
	st = partitionload.Wrap(st, a.hot)
	for i, spec := range specs {
		if cs[i], err = st.Container(ctx, spec.Name); err != nil {
			return nil, cs, err
		}
	}
	return st, cs, nil
}

// newEraser is the erasure runner; on the embedded store it also scrubs
// the file's free pages after an erasure.
func (a *App) newEraser(todos, auditC store.Container, scheme partition.Scheme) *governance.Eraser {
	eraser := &governance.Eraser{Todos: todos, Audit: auditC, Scheme: scheme, Log: a.log}
	if s, ok := a.store.(interface {
		ScrubFreePages(context.Context) (int, error)
	}); ok {
		// The embedded store's file keeps the old bytes of changed pages
		// until they are reused: an erasure overwrites them.
		eraser.Scrub = func(ctx context.Context) error {
			n, err := s.ScrubFreePages(ctx)
			a.log.Info("store file scrubbed after an erasure", "pages", n)
			return err
		}
	}
	return eraser
}

// newReconciler is the reconcile pass with what runs after it: the
// activity backfill, under the host the erasures' resumption and a log
// integration, and the retention purge when retention is set.
func (a *App) newReconciler(todos, auditC, leases store.Container, svc *service.Service, eraser *governance.Eraser, integ *transparency.Integrator) *reconcile.Reconciler {
	rec := &reconcile.Reconciler{Todos: todos, Audit: auditC, Leases: leases, Log: a.log, FinishMove: svc.FinishVersionMove}
	views := &backfill.Backfill{Audit: auditC, Leases: leases}
	rec.After = append(rec.After, func(ctx context.Context) (string, error) {
		res, err := views.Step(ctx)
		if res.Done && res.Records == 0 {
			return "", err // finished before this run
		}
		return res.String(), err
	})
	if a.cfg.Mode != config.Standalone {
		// Under the host the Reconcile timer resumes erasures too, should
		// the instance that ran one have gone.
		rec.After = append(rec.After, func(ctx context.Context) (string, error) {
			res, err := eraser.Run(ctx)
			return res.String(), err
		})
	}
	if a.cfg.Mode != config.Standalone && integ != nil {
		// Under the host LogIntegrator runs when the audit container
		// changes, so an idle log costs no invocation; the hourly
		// Reconcile timer integrates too, should a change's pass have
		// failed with no write after it.
		rec.After = append(rec.After, func(ctx context.Context) (string, error) {
			res, err := integ.Run(ctx)
			return fmt.Sprintf("transparency log: %d leaves appended, tree size %d", res.Appended, res.Size), err
		})
	}
	if a.cfg.AuditRetention > 0 {
		purger := &governance.Purger{Audit: auditC, Leases: leases, Retention: a.cfg.AuditRetention}
		rec.After = append(rec.After, func(ctx context.Context) (string, error) {
			res, err := purger.Step(ctx)
			return res.String(), err
		})
	}
	return rec
}

// invocations are the payload-mode functions, reached only by the
// Functions host on the loopback port it alone talks to. Standalone
// nothing serves them: the pump calls the trigger's core in-process, and
// the reconciler and the integrator run on their own timers.
func (a *App) invocations(auditTrigger *trigger.Trigger, rec *reconcile.Reconciler, integ *transparency.Integrator) (map[string]http.Handler, error) {
	if a.cfg.Mode == config.Standalone {
		return nil, nil
	}
	trig, err := invocation.NewAuditTrigger(auditTrigger, a.log)
	if err != nil {
		return nil, err
	}
	invocations := map[string]http.Handler{
		"AuditTrigger": trig,
		"Reconcile":    invocation.Reconcile(rec, a.log),
	}
	if integ != nil {
		invocations["LogIntegrator"] = invocation.LogIntegrator(integ, a.log)
	}
	return invocations, nil
}

// startPump starts the standalone audit pump, woken by each commit of
// the embedded store, and the reconcile loop beside it.
func (a *App) startPump(bg context.Context, todos, auditC, leases store.Container, auditTrigger *trigger.Trigger, rec *reconcile.Reconciler, sweeper *service.MoveSweeper) error {
	p, err := pump.New(todos, auditC, leases, auditTrigger, a.log)
	if err != nil {
		return err
	}
	p.Telemetry = a.opts.Telemetry
	// A request's store work ends within StoreTimeout: a retired
	// version's id stays taken for twice that.
	p.Reserve = 2 * a.cfg.StoreTimeout
	if changed := a.storeChanges(); changed != nil {
		// Woken by each commit, the pump polls only as a fallback.
		p.Changed, p.Poll = changed, time.Second
	}
	a.pump = p
	if r, ok := a.store.(store.Relaying); ok {
		// Each write's audit records are written in the write's own
		// commit; the pump audits what such a write leaves to it.
		if err := r.RelayBatches(todos.Spec().Name, p); err != nil {
			return err
		}
	}
	p.ReportTo(func(err error) { a.health.Report("audit", err) })
	// The pump's failures follow the store's: once the store recovers
	// it retries at once, rather than at the end of its back-off.
	a.health.OnClear(func(source string) {
		if source == health.StoreSource {
			p.Wake()
		}
	})
	a.health.WatchAudit(p.Status)
	// Background work yields to users: its store calls go at low
	// priority.
	low := store.WithLowPriority(bg)
	a.goBackground(func() { p.Run(low) })
	a.goBackground(func() { a.reconcileLoop(low, rec, sweeper) })

	return nil
}

// LogIntegrateEvery is how often the standalone handler appends new
// versions to the transparency log and signs a checkpoint when it grew,
// on a store that does not tell of its commits; on one that does (the
// embedded store), a commit starts a pass sooner.
const LogIntegrateEvery = time.Second

// logKeyFile is the signing key's file in DATA_DIR when LOG_SIGNING_KEY
// is not set.
const logKeyFile = "log-signing.key"

// transparencyLog builds the log and its integrator, both nil when the
// log is off.
func (a *App) transparencyLog(ctx context.Context, auditC, leases store.Container) (*transparency.Log, *transparency.Integrator, error) {
	if !a.cfg.TransparencyLog {
		return nil, nil, nil
	}
	var keys *transparency.Keys
	var err error
	switch {
	case a.cfg.LogSigningKeyID != "":
		cred, err := a.azureCredential()
		if err == nil {
			keys, err = keyvault.Keys(ctx, a.cfg.LogSigningKeyID, a.cfg.LogOrigin, cred, nil)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("LOG_SIGNING_KEY_ID: %w", err)
		}
	case a.cfg.LogSigningKey != "":
		keys, err = transparency.NewKeys(a.cfg.LogSigningKey)
		if err == nil && keys.Signer.Name() != a.cfg.LogOrigin {
			err = fmt.Errorf("it signs as %q, not as LOG_ORIGIN %q", keys.Signer.Name(), a.cfg.LogOrigin)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("LOG_SIGNING_KEY: %w", err)
		}
	default:
		if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("transparency log key: %w", err)
		}
		if keys, err = transparency.LoadOrCreateKeys(filepath.Join(a.cfg.DataDir, logKeyFile), a.cfg.LogOrigin); err != nil {
			return nil, nil, fmt.Errorf("transparency log key: %w", err)
		}
	}
	if a.cfg.LogEd25519SecretID != "" {
		cred, err := a.azureCredential()
		if err == nil {
			keys.Ed25519, err = keyvault.Ed25519Keys(ctx, a.cfg.LogEd25519SecretID, a.cfg.LogOrigin, cred, nil)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("LOG_ED25519_SECRET_ID: %w", err)
		}
	}
	var anchors transparency.Anchors = &transparency.DirAnchors{Dir: a.cfg.LogAnchorDir}
	if a.cfg.LogAnchorURL != "" {
		cred, err := a.azureCredential()
		if err == nil {
			anchors, err = blobanchors.New(a.cfg.LogAnchorURL, cred, nil)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("LOG_ANCHOR_URL: %w", err)
		}
	}
	l := &transparency.Log{Leases: leases, Audit: auditC, Keys: keys, Anchors: anchors, Witnesses: a.cfg.LogWitnesses}
	in := &transparency.Integrator{Audit: auditC, Leases: leases, Keys: keys, Anchors: anchors, Log: a.log,
		Report: func(err error) { a.health.Report("transparency log", err) }, Published: l.Signed}
	if a.cfg.LogWitnesses != nil {
		in.Witnessing = &transparency.Witnessing{Policy: a.cfg.LogWitnesses, OnlyWithQuorum: a.cfg.LogPublishWithQuorum,
			Report:  func(err error) { a.health.Report("log witnesses", err) },
			Refused: func(w string) { a.opts.Telemetry.Metrics().WitnessRefused(context.Background(), w) }}
	}
	if o, ok := a.store.(interface{ StampsInCommitOrder() bool }); ok {
		in.CommitOrdered = o.StampsInCommitOrder()
	}
	if k, ok := a.store.(interface{ KeySet(string) *bolt.KeySet }); ok {
		l.LeafIndex = k.KeySet(transparency.LeafIndexSet)
		in.LeafIndex = l.LeafIndex
	}
	l.Damaged = in.Damaged
	return l, in, nil
}

// azureCredential is the identity the log signs and anchors with: the
// user-assigned managed identity the Cosmos DB settings name, or, without
// one, azidentity's default chain.
func (a *App) azureCredential() (azcore.TokenCredential, error) {
	if id := a.cfg.CosmosClientID; id != "" {
		return azidentity.NewManagedIdentityCredential(&azidentity.ManagedIdentityCredentialOptions{ID: azidentity.ClientID(id)})
	}
	return azidentity.NewDefaultAzureCredential(nil)
}

// integrateLoop runs the log's integrator soon after each commit of the
// store, paced by logPassGap (see logPacer), and every LogIntegrateEvery
// where the store does not tell of its commits.
func (a *App) integrateLoop(ctx context.Context, in *transparency.Integrator) {
	p := &logPacer{
		pass: func(ctx context.Context) {
			if _, err := in.Run(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, transparency.ErrRefused) {
				a.log.Error("transparency log integration failed", "error", err.Error())
			}
		},
		changes: a.storeChanges(), gap: logPassGap, every: LogIntegrateEvery, idle: logIdlePasses,
		after: time.After, now: time.Now,
	}
	p.run(ctx)
}

// logPassGap is the least time from the start of one pass of the
// standalone integrator to the next: the writes of that time share a
// checkpoint, and the log signs at most four a second however fast
// they come.
const logPassGap = 250 * time.Millisecond

// logIdlePasses bounds the fallback periods in a row without a commit
// after which a pass runs all the same, so that what a pass does besides
// appending (anchoring a checkpoint whose anchoring failed) is retried at
// least that often.
const logIdlePasses = 30

// storeChanges is the store's Changed when it has one (the embedded
// store), else nil.
func (a *App) storeChanges() func() <-chan struct{} {
	if n, ok := a.store.(interface{ Changed() <-chan struct{} }); ok {
		return n.Changed
	}
	return nil
}

// IntegrateLog runs one pass of the transparency log's integrator now
// (standalone only), for tests and tools.
func (a *App) IntegrateLog(ctx context.Context) (transparency.Result, error) {
	if a.integ == nil {
		return transparency.Result{}, errors.New("no transparency log integrator in this mode")
	}
	return a.integ.Run(ctx)
}

// finishMoves completes the moves an earlier process left half done, before
// the API serves, so that every todo is listed right after a restart. A
// failing store is retried a few times before start-up gives up. It is
// background work: its store calls go at low priority.
func (a *App) finishMoves(ctx context.Context, sweeper *service.MoveSweeper) error {
	retry := backoff.Policy{Base: 100 * time.Millisecond, Max: 2 * time.Second}
	for attempt := 0; ; attempt++ {
		mctx, meter := store.WithMeter(store.WithLowPriority(ctx))
		n, err := sweeper.Run(mctx)
		if n > 0 {
			a.log.Warn("finished interrupted moves", "moves", n, "ru", meter.Cost().Charge)
		}
		if err == nil {
			return nil
		}
		if attempt == 4 {
			return fmt.Errorf("finishing interrupted moves: %w", err)
		}
		a.log.Error("finishing interrupted moves failed; retrying", "error", err.Error(), "attempt", attempt+1)
		if err := backoff.Sleep(ctx, retry.Delay(attempt)); err != nil {
			return err
		}
	}
}

func (a *App) goBackground(fn func()) {
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		fn()
	}()
}

// reconcileLoop refills history at start and then periodically, and moves
// the move sweeper's checkpoint along, so that the sweep at the next start
// reads only what changed since.
func (a *App) reconcileLoop(ctx context.Context, rec *reconcile.Reconciler, sweeper *service.MoveSweeper) {
	t := time.NewTicker(ReconcileEvery)
	defer t.Stop()
	for {
		if _, err := rec.Run(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("reconcile failed", "error", err.Error())
		}
		if _, err := sweeper.Run(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("finishing interrupted moves failed", "error", err.Error())
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
	a.pump.Drain(ctx)
	return ctx.Err()
}

// Reconcile runs one reconcile pass now, as the Reconcile function does
// under the host and the reconcile loop does standalone, for tests and
// tools. Valid once the store is open.
func (a *App) Reconcile(ctx context.Context) (reconcile.Result, error) {
	if a.reconciler == nil {
		return reconcile.Result{}, errors.New("the store is not open")
	}
	return a.reconciler.Run(ctx)
}

// Close shuts down: it cancels opening (requests waiting for it get 503)
// and waits for it to end; stops the pump (which saves its checkpoint),
// the reconciler and the health probe; lets in-flight requests finish
// until ctx ends, then drops the connections left (logged, not an error);
// and closes the store, whose failure it returns.
func (a *App) Close(ctx context.Context) error {
	a.cancelOpen()
	<-a.opened
	a.cancelBg()
	a.bg.Wait()
	shut := make(chan error, 1)
	go func() { shut <- a.server.Shutdown(ctx) }()
	var err error
	select {
	case err = <-shut:
	case <-time.After(freshGrace):
		a.fresh.close()
		err = <-shut
	}
	if err != nil {
		a.log.Warn("in-flight requests did not finish in time; closing their connections", "error", err.Error())
		_ = a.server.Close()
	}
	<-a.serving
	if a.store == nil {
		return nil
	}
	return a.store.Close()
}
