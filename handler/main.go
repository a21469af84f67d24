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
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/logging"
)

func main() {
	os.Exit(run(os.LookupEnv, os.Stdout, os.Stderr))
}

// run starts the handler and blocks until SIGINT or SIGTERM; it returns
// the process exit code.
func run(lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	cfg, err := config.Load(lookup)
	if err != nil {
		fmt.Fprintln(stderr, "handler:", err)
		return 2
	}
	// Informational logs are buffered (flushed every 100 ms and at exit);
	// errors go to stderr at once.
	out := logging.NewFlushingWriter(stdout, 100*time.Millisecond)
	defer out.Close()
	log := logging.NewLogger(out, stderr, logging.ParseLevel(cfg.LogLevel))
	// The heap is small and short-lived; trading a little memory for less
	// GC work raises throughput (an explicit GOGC still wins).
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	a, err := app.Start(cfg, log, nil)
	if err != nil {
		fmt.Fprintln(stderr, "handler:", err)
		return 1
	}
	if err := a.Wait(); err != nil {
		fmt.Fprintln(stderr, "handler: start-up failed:", err)
		_ = closeApp(a)
		return 1
	}
	<-ctx.Done()
	log.Info("shutting down")
	if err := closeApp(a); err != nil {
		fmt.Fprintln(stderr, "handler: shutdown:", err)
		return 1
	}
	return 0
}

// closeApp shuts down gracefully, within a bound.
func closeApp(a *app.App) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return a.Close(ctx)
}
