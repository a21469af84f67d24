package witnessproto

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/todoaudit/todo"
)

// StaleError is the answer to a request whose old size is not the size
// of the checkpoint the witness cosigned last for that log: Size is that
// size, which the client proves consistency from when it tries again.
type StaleError struct{ Size int64 }

func (e *StaleError) Error() string {
	return fmt.Sprintf("the witness's latest cosigned checkpoint of this log has size %d", e.Size)
}

// maxResponseBytes bounds what is read of a witness's answer: a few
// signature lines.
const maxResponseBytes = 1 << 16

// Submit sends req to the witness whose submission prefix is prefix and
// returns its cosignature lines, unverified. A 409 is a *StaleError with
// the witness's size; any other refusal an error of the kind its status
// has (Unprocessable for 422: the witness saw another tree).
func Submit(ctx context.Context, client *http.Client, prefix string, req Request) ([]byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(prefix, "/")+"/add-checkpoint", bytes.NewReader(req.Encode()))
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(r)
	if err != nil {
		return nil, todo.Wrap(todo.Unavailable, err, "the witness could not be reached")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, todo.Wrap(todo.Unavailable, err, "the witness's answer was cut short")
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return body, nil
	case http.StatusConflict:
		s := strings.TrimSuffix(string(body), "\n")
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || !strings.HasSuffix(string(body), "\n") {
			return nil, todo.Errorf(todo.Invalid, "the witness answered 409 with %q, not a tree size", body)
		}
		return nil, todo.Wrap(todo.Conflict, &StaleError{Size: n}, "the witness has cosigned another size")
	case http.StatusUnprocessableEntity:
		return nil, todo.Errorf(todo.Unprocessable, "the witness refused the checkpoint as inconsistent with the one it cosigned: %s", firstLine(body))
	case http.StatusNotFound:
		return nil, todo.Errorf(todo.NotFound, "the witness does not know this log: %s", firstLine(body))
	case http.StatusForbidden:
		return nil, todo.Errorf(todo.Forbidden, "the witness does not trust the log's signature: %s", firstLine(body))
	}
	return nil, todo.Errorf(todo.Unavailable, "the witness answered %d: %s", resp.StatusCode, firstLine(body))
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	if len(line) > 200 {
		line = line[:200]
	}
	return fmt.Sprintf("%q", line)
}
