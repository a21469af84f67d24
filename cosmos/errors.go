package cosmos

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/todoaudit/todo"
)

// statusRetryWith is Cosmos DB's 449 "retry with": a transient conflict on
// the server side that the caller may retry. 410 Gone is transient too: a
// partition moved or split under the request.
const statusRetryWith = 449

// subStatusOwnerMissing is the 404 sub-status for a missing database or
// container, as opposed to a missing item.
const subStatusOwnerMissing = "1003"

// mapError turns an error from the SDK into a *todo.Error. subject names
// what the call was about ("item \"a\"") for the public message; the raw
// Cosmos DB message stays in the wrapped cause, for logs only.
func mapError(err error, subject string) error {
	if err == nil {
		return nil
	}
	var te *todo.Error
	if errors.As(err, &te) {
		return err
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		var h http.Header
		if re.RawResponse != nil {
			h = re.RawResponse.Header
		}
		return statusError(re.StatusCode, h, subject, err)
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return todo.Wrap(todo.Unavailable, err, "Cosmos DB did not answer in time")
	case errors.Is(err, context.Canceled):
		return todo.Wrap(todo.Unavailable, err, "request cancelled")
	case errors.As(err, &ne):
		return todo.Wrap(todo.Unavailable, err, "Cosmos DB cannot be reached")
	}
	return todo.Wrap(todo.Internal, err, "Cosmos DB request failed")
}

// statusError maps one Cosmos DB status (of a response, or of one
// operation of a transactional batch) to a *todo.Error. h may be nil.
func statusError(status int, h http.Header, subject string, cause error) error {
	wrap := func(k todo.Kind, msg string) *todo.Error { return todo.Wrap(k, cause, msg) }
	switch status {
	case http.StatusNotFound:
		if h.Get("x-ms-substatus") == subStatusOwnerMissing {
			return wrap(todo.Internal, "the Cosmos DB database or container is missing")
		}
		return wrap(todo.NotFound, subject+" not found")
	case http.StatusConflict:
		return wrap(todo.Conflict, subject+" already exists")
	case http.StatusPreconditionFailed:
		return wrap(todo.PreconditionFailed, subject+" has changed (ETag mismatch)")
	case http.StatusRequestEntityTooLarge:
		return wrap(todo.TooLarge, "the document or request is too large for Cosmos DB")
	case http.StatusBadRequest:
		return wrap(todo.Invalid, "Cosmos DB refused the request as invalid (malformed continuation token or document?)")
	case http.StatusTooManyRequests:
		e := wrap(todo.Throttled, "Cosmos DB is throttling requests; retry later")
		e.RetryAfter = retryAfter(h)
		return e
	case http.StatusRequestTimeout, http.StatusGone, statusRetryWith, http.StatusServiceUnavailable:
		e := wrap(todo.Unavailable, "Cosmos DB is temporarily unavailable; retry later")
		e.RetryAfter = retryAfter(h)
		return e
	}
	if cause == nil {
		cause = errors.New("Cosmos DB status " + strconv.Itoa(status))
	}
	return todo.Wrap(todo.Internal, cause, "Cosmos DB request failed")
}

// retryAfter reads Cosmos DB's back-off hint, x-ms-retry-after-ms.
func retryAfter(h http.Header) time.Duration {
	ms, err := strconv.ParseFloat(h.Get("x-ms-retry-after-ms"), 64)
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}
