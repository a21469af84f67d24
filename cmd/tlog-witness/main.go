// Command tlog-witness is a transparency log witness (C2SP tlog-witness):
// it cosigns each checkpoint of the logs it trusts once a consistency
// proof shows it extends the last one it cosigned, so that a log cannot
// show two trees to two parties without one of them holding proof of it.
// It keeps its state and its key in one directory, and needs nothing else.
//
//	tlog-witness -listen 127.0.0.1:7380 -data /var/lib/tlog-witness \
//	  -name witness.example/w1 -log 'todoaudit.local/log+…'
//
// At start it prints its verifier key on a line of its own: that line goes
// into the policy of every log that submits to it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/todoaudit/todo/transparency/witness"
)

type logKeys []string

func (l *logKeys) String() string     { return strings.Join(*l, " ") }
func (l *logKeys) Set(v string) error { *l = append(*l, v); return nil }

// shutdownWait bounds how long a stopping witness waits for the requests
// in flight.
const shutdownWait = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "tlog-witness:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. ready, when set, hears the address it
// listens on.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("tlog-witness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7380", "the address to serve on")
	data := fs.String("data", "", "the directory of the witness's state and key, created at first start")
	name := fs.String("name", "", "the witness's name, its key's name (a schema-less URL, e.g. witness.example/w1)")
	keyType := fs.String("key-type", witness.MLDSA44, "the type of a key created at first start: mldsa44 or ed25519")
	var logs logKeys
	fs.Var(&logs, "log", "the verifier key of a log to witness (its name is the log's origin); repeatable")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *name == "" || len(logs) == 0 || fs.NArg() > 0 {
		return errors.New("-data, -name and at least one -log are required")
	}
	if err := os.MkdirAll(*data, 0o700); err != nil {
		return err
	}
	key, err := witness.LoadOrCreateKey(filepath.Join(*data, "witness.key"), *name, *keyType)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	w, err := witness.Open(filepath.Join(*data, "witness.db"), key, logs, logger)
	if err != nil {
		return err
	}
	defer w.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, key.VerifierKey)
	logger.Info("tlog-witness serving", "addr", ln.Addr().String(), "logs", len(logs))
	if ready != nil {
		ready(ln.Addr().String())
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	<-served
	return nil
}
