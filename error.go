package todo

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error so that every layer can react to it without
// knowing where it came from. The HTTP layer maps each kind to one status in
// a single table.
type Kind int

// The kinds. Append only: their order is not significant, but tests name them.
const (
	Internal             Kind = iota // a bug or an unexpected failure; details are never shown
	Invalid                          // the caller sent something malformed or not allowed
	NotFound                         // the item does not exist, or belongs to someone else
	Conflict                         // the item exists already, or the request contradicts its state
	PreconditionFailed               // an If-Match ETag did not match
	TooLarge                         // a body or document exceeds a size limit
	Throttled                        // the store asked us to back off (Cosmos 429)
	Unavailable                      // the store is down or timed out; retrying may help
	NotModified                      // an If-None-Match ETag matched
	Unauthorized                     // no authenticated caller, or credentials that do not verify
	InsufficientStorage              // the store cannot write: no space left, or an I/O error
	Forbidden                        // an authenticated caller without the role a route needs
	MethodNotAllowed                 // the route exists, but not with this method
	UnsupportedMediaType             // the body is not in a format the route accepts
	Unprocessable                    // a well-formed request the server will not process (a reused idempotency key)
)

var kindNames = [...]string{
	Internal:             "internal",
	Invalid:              "invalid",
	NotFound:             "not-found",
	Conflict:             "conflict",
	PreconditionFailed:   "precondition-failed",
	TooLarge:             "too-large",
	Throttled:            "throttled",
	Unavailable:          "unavailable",
	NotModified:          "not-modified",
	Unauthorized:         "unauthorized",
	InsufficientStorage:  "insufficient-storage",
	Forbidden:            "forbidden",
	MethodNotAllowed:     "method-not-allowed",
	UnsupportedMediaType: "unsupported-media-type",
	Unprocessable:        "unprocessable",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is an error with a kind and a message that is safe to show to the
// caller. Err, when set, carries internal detail for logs only.
type Error struct {
	Kind    Kind
	Message string
	// RetryAfter is how long the caller should wait, for Throttled and
	// Unavailable errors; zero when unknown.
	RetryAfter time.Duration
	// MovedTo is the id a moved-away todo lives under now, for errors
	// about its old id; the HTTP layer points Location at it.
	MovedTo string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind k with a formatted public message.
func Errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of kind k with a public message and an internal cause.
func Wrap(k Kind, err error, message string) *Error {
	return &Error{Kind: k, Message: message, Err: err}
}

// KindOf returns the kind of err: the kind of the first *Error in its chain,
// Internal for any other non-nil error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// IsKind reports whether err is of kind k.
func IsKind(err error, k Kind) bool { return err != nil && KindOf(err) == k }

// Message returns the public message of err; internal errors get a generic
// sentence so that no detail leaks.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != Internal {
		return e.Message
	}
	return "An internal error occurred."
}

// RetryAfter returns the back-off hint carried by err, if any.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// MovedTo returns the id a moved-away todo lives under now, when err is
// about its old id, else "".
func MovedTo(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.MovedTo
	}
	return ""
}
