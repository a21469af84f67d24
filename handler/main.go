// Command handler is the Azure Functions custom handler of the todo and
// audit API. Under the Functions host (FUNCTIONS_CUSTOMHANDLER_PORT set) it
// serves the forwarded HTTP functions and the payload-mode AuditTrigger and
// Reconcile functions; standalone it runs the same API on the embedded store
// with a local change-feed pump feeding AuditTrigger. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/telemetry"
)

func main() {
	os.Exit(run(os.LookupEnv, os.Environ(), os.Stdout, os.Stderr))
}

// run starts the handler and blocks until SIGINT or SIGTERM; it returns
// the process exit code: 0 after a signal, 1 when the store cannot be
// opened, 2 for a bad setting. environ is the whole environment, whose
// variables that look like settings but are none are warned of.
func run(lookup func(string) (string, bool), environ []string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(lookup)
	if err != nil {
		fmt.Fprintln(stderr, "handler:", err)
		return 2
	}
	// Informational logs are buffered (flushed every 100 ms and at exit);
	// errors go to stderr at once.
	out := telemetry.NewFlushingWriter(stdout, 100*time.Millisecond)
	defer out.Close()
	log := telemetry.NewLogger(out, stderr, telemetry.ParseLevel(cfg.LogLevel))
	for _, u := range config.Unknown(environ) {
		log.Warn("unknown setting ignored: the handler reads no variable of this name", "setting", u.Name, "closest", u.Closest)
	}
	// The live heap is a megabyte or two under load, so the collector's
	// goal is its floor, 4 MB times GOGC/100: at 800, 32 MB, and half the
	// collections (and write barriers) of 400 (an explicit GOGC still
	// wins).
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(800)
	}
	// That 800 % would let the garbage of a few large invocations pile up
	// to many times MAX_PAYLOAD_BYTES; a soft memory limit makes the GC
	// work harder before that (an explicit GOMEMLIMIT still wins).
	if _, set := lookup("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(32<<20 + 3*cfg.MaxPayloadBytes)
	}
	// Signals are taken over before anything else starts, so that one
	// arriving while the store opens is not lost.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	// Exports only where the OTEL_* settings name an endpoint.
	tel, err := telemetry.New(context.Background(), lookup)
	if err != nil {
		fmt.Fprintln(stderr, "handler: OpenTelemetry settings:", oneLine(err))
		return 2
	}
	// Spans and metrics still buffered are exported at exit.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := tel.Shutdown(ctx); err != nil {
			fmt.Fprintln(stderr, "handler: exporting telemetry at exit:", oneLine(err))
		}
	}()

	opts := &app.Options{Telemetry: tel}
	if cfg.InheritedListener {
		f := os.NewFile(3, "LISTEN_FDS socket")
		ln, err := net.FileListener(f)
		f.Close() // the listener holds a duplicate
		if err != nil {
			fmt.Fprintln(stderr, "handler: LISTEN_FDS: file descriptor 3 is not a listening socket:", err)
			return 2
		}
		opts.Listener = ln
	}
	a, err := app.Start(cfg, log, opts)
	if err != nil {
		fmt.Fprintln(stderr, "handler:", err)
		return 1
	}
	select {
	case <-a.Opened():
		if err := a.Wait(); err != nil {
			fmt.Fprintln(stderr, "handler: start-up failed:", oneLine(err))
			_ = shutdown(a, cfg.ShutdownTimeout, signals, log)
			return 1
		}
		<-signals
	case <-signals:
	}
	log.Info("shutting down")
	if err := shutdown(a, cfg.ShutdownTimeout, signals, log); err != nil {
		fmt.Fprintln(stderr, "handler: shutdown:", oneLine(err))
		return 1
	}
	return 0
}

// shutdown closes the app, letting in-flight requests finish within
// timeout; another signal meanwhile cuts the wait short. Running out of
// time is no failure: the requests left lose their connections.
func shutdown(a *app.App, timeout time.Duration, signals <-chan os.Signal, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case <-signals:
			log.Info("second signal: not waiting for in-flight requests")
			cancel()
		case <-ctx.Done():
		}
	}()
	return a.Close(ctx)
}

// oneLine puts an error on one line: SDK errors span several.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
