package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/todoaudit/todo/transparency"
	"github.com/todoaudit/todo/transparency/witness"
)

// execWait bounds the command monitor runs on an inconsistency.
const execWait = time.Minute

// catchUpWait is how long a log has to publish a tree a witness has
// cosigned: it publishes each checkpoint as soon as its witnesses answer.
const catchUpWait = 2 * time.Second

// catchUp reads the log's checkpoint until it is at least size, for up to
// catchUpWait: the checkpoint and true once it is.
func (vr *verifier) catchUp(base string, size int64) ([]byte, transparency.Checkpoint, bool) {
	for deadline := time.Now().Add(catchUpWait); time.Now().Before(deadline); time.Sleep(catchUpWait / 8) {
		msg, err := vr.read(base + "/checkpoint")
		if err != nil {
			continue
		}
		if c, err := transparency.OpenCheckpoint(msg, vr.v); err == nil && c.Size >= size {
			return msg, c, true
		}
	}
	return nil, transparency.Checkpoint{}, false
}

// monitor polls a log's checkpoint, as an auditor's watchdog: each must
// verify and be consistent with the last one accepted (remembered across
// runs), and the checkpoint each witness of the policy serves on its
// monitoring route must be consistent with the log's, and served by the
// log within catchUpWait when it is the larger. A log or witness
// that cannot be reached is reported and polled again; a checkpoint short
// of the quorum is reported; an inconsistency runs -exec and exits 1.
func (vr *verifier) monitor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("monitor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	every := fs.Duration("every", time.Minute, "time between polls")
	count := fs.Int("count", 0, "polls before exiting 0; 0: until interrupted")
	command := fs.String("exec", "", "a shell command run on an inconsistency, the problem in $TLOG_VERIFY_PROBLEM")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || *every <= 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	base := strings.TrimSuffix(fs.Arg(0), "/")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for i := 0; *count == 0 || i < *count; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return 0
			case <-time.After(*every):
			}
		}
		problem := vr.poll(base, stdout, stderr)
		if problem == nil {
			continue
		}
		fmt.Fprintln(stderr, "tlog-verify: INCONSISTENT:", problem)
		if *command != "" {
			cctx, cancel := context.WithTimeout(ctx, execWait)
			cmd := exec.CommandContext(cctx, "/bin/sh", "-c", *command)
			cmd.Env = append(os.Environ(), "TLOG_VERIFY_PROBLEM="+problem.Error())
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(stderr, "tlog-verify: -exec:", err)
			}
			cancel()
		}
		return 1
	}
	return 0
}

// poll checks the log's checkpoint and the witnesses' once. It returns
// only inconsistencies: what cannot be read is reported and left to the
// next poll.
func (vr *verifier) poll(base string, stdout, stderr io.Writer) error {
	vr.remember = nil
	msg, err := vr.read(base + "/checkpoint")
	if err != nil {
		fmt.Fprintln(stderr, "tlog-verify: monitor: the log:", err)
		return nil
	}
	c, said, err := vr.accept(msg, base)
	switch {
	case errors.Is(err, transparency.ErrNoQuorum):
		fmt.Fprintln(stderr, "tlog-verify: monitor:", err)
	case err != nil:
		return err
	default:
		if vr.remember != nil {
			if err := vr.remember(); err != nil {
				fmt.Fprintln(stderr, "tlog-verify: monitor: remembering:", err)
			}
		}
		fmt.Fprintln(stdout, with("checkpoint "+c.String(), said))
	}
	if vr.policy == nil {
		return nil
	}
	for _, w := range vr.policy.Witnesses {
		theirs, err := vr.read(strings.TrimSuffix(w.URL, "/") + "/" + witness.OriginHash(c.Origin) + "/checkpoint")
		if err != nil {
			fmt.Fprintf(stderr, "tlog-verify: monitor: witness %s: %v\n", w.Name, err)
			continue
		}
		wc, err := transparency.OpenCheckpoint(theirs, vr.v)
		if err != nil {
			return fmt.Errorf("witness %s serves a checkpoint of the log that does not verify: %w", w.Name, err)
		}
		if wc.Size > c.Size {
			// A tree the witness cosigned and the log does not serve:
			// published a moment after the witness cosigned it, or
			// rolled back.
			caught, cc, ok := vr.catchUp(base, wc.Size)
			if !ok {
				return fmt.Errorf("witness %s cosigned the log's tree of size %d, and the log still serves %s: it was rolled back, or it holds back a checkpoint its witnesses cosigned", w.Name, wc.Size, c)
			}
			msg, c = caught, cc
		}
		if err := vr.consistentWith(theirs, msg, base); err != nil {
			return fmt.Errorf("the log's %s and the %s witness %s cosigned: %w", c, wc, w.Name, err)
		}
	}
	return nil
}
