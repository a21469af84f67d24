// Package auth identifies the caller of an HTTP request and decides whether
// it may use a route. Each AUTH_MODE is one way of naming the caller: entra
// verifies Microsoft Entra ID bearer tokens itself, easyauth trusts the
// headers App Service Authentication sets, single serves one fixed user and
// dev trusts the X-User-Id header (standalone only). Admin is a role in every
// mode.
package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/header"
)

// AdminRole is the app role that opens the /api/manage routes under entra
// and easyauth.
const AdminRole = "Todo.Admin"

// The modes (AUTH_MODE).
const (
	Entra    = "entra"
	EasyAuth = "easyauth"
	Single   = "single"
	Dev      = "dev"
)

// Header names the modes read.
const (
	// PrincipalIDHeader and PrincipalHeader are set by App Service
	// Authentication: the caller's id, and its claims as base64 JSON.
	PrincipalIDHeader = "X-MS-CLIENT-PRINCIPAL-ID"
	PrincipalHeader   = "X-MS-CLIENT-PRINCIPAL"
	// DevUserHeader names the caller in dev mode.
	DevUserHeader = "X-User-Id"
	// DevDefaultUser is the dev mode caller of user routes when the header
	// is absent. Admin routes never default: they need a named user.
	DevDefaultUser = "local"
)

// Access is what a route requires of its caller.
type Access int

// The access levels.
const (
	Anyone Access = iota // no authentication (the health probe)
	User                 // an authenticated caller
	Admin                // an authenticated caller with the admin role
)

// Caller is an authenticated caller.
type Caller struct {
	User  string
	Admin bool
}

// Authenticator identifies callers under one mode.
type Authenticator struct {
	identify func(r *http.Request, need Access) (Caller, error)
	// bearer: refusals carry RFC 6750 Bearer challenges (the modes whose
	// callers present bearer tokens, to the handler or to App Service).
	bearer bool
}

// Health hears how the entra mode's identity provider is doing, for
// /api/health; *health.Monitor has these methods.
type Health interface {
	// Starting marks source as not started yet, saying what it is doing.
	Starting(source, cause string)
	// Report records source's fault (err non-nil) or that it has none.
	Report(source string, err error)
}

// Options adjust New; nil means the defaults.
type Options struct {
	// Health, when set, hears under entra that the provider is being
	// discovered, then whether its keys can be fetched.
	Health Health
	// Clock replaces the system clock under entra (tests).
	Clock Clock
}

// New returns the authenticator of settings s, which Resolve has checked.
// Under entra it discovers the provider in the background until ctx ends;
// tokens are refused with 503 until its keys are loaded.
func New(ctx context.Context, s Settings, log *slog.Logger, o *Options) (*Authenticator, error) {
	admins := func(user string) bool { return slices.Contains(s.AdminUsers, user) }
	switch s.Mode {
	case Entra:
		e := newEntra(s.Issuer, s.Audience, log, o)
		e.start(ctx)
		return &Authenticator{identify: e.identify, bearer: true}, nil
	case EasyAuth:
		return &Authenticator{identify: identifyPrincipal, bearer: true}, nil
	case Single:
		return &Authenticator{identify: func(*http.Request, Access) (Caller, error) {
			return Caller{User: s.SingleUser, Admin: admins(s.SingleUser)}, nil
		}}, nil
	case Dev:
		return &Authenticator{identify: func(r *http.Request, need Access) (Caller, error) {
			user := header.Get(r.Header, DevUserHeader)
			if user == "" {
				if need == Admin {
					return Caller{}, missing("name the caller in the %s header", DevUserHeader)
				}
				user = DevDefaultUser
			}
			if err := todo.ValidateUserID(user); err != nil {
				return Caller{}, todo.Errorf(todo.Invalid, "the %s header is not a usable user id: %s", DevUserHeader, todo.Message(err))
			}
			return Caller{User: user, Admin: admins(user)}, nil
		}}, nil
	}
	return nil, &SettingError{"AUTH_MODE", "unknown mode " + s.Mode}
}

// Authorize returns the caller of r if it has the access need. Otherwise the
// error's kind is Unauthorized (no caller, or credentials that do not
// verify: 401), Forbidden (no admin role: 403), Unavailable (credentials
// that cannot be checked yet: 503) or Invalid; Challenge gives the
// WWW-Authenticate value its answer carries.
func (a *Authenticator) Authorize(r *http.Request, need Access) (Caller, error) {
	if need == Anyone {
		return Caller{}, nil
	}
	c, err := a.identify(r, need)
	if err == nil && need == Admin && !c.Admin {
		err = todo.Errorf(todo.Forbidden, "the %s role is needed", AdminRole)
	}
	if err != nil && a.bearer {
		err = &refusal{challenge: bearerChallenge(err), err: err}
	}
	return c, err
}

// refusal is an authentication error with its WWW-Authenticate challenge.
type refusal struct {
	challenge string
	err       error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// Challenge returns the WWW-Authenticate value an answer to err carries,
// empty when none.
func Challenge(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.challenge
	}
	return ""
}

// errNoCredentials marks a request that sent no credentials at all: its
// challenge names no error code (RFC 6750 section 3.1).
var errNoCredentials = errors.New("no credentials")

func missing(format string, args ...any) error {
	e := todo.Errorf(todo.Unauthorized, format, args...)
	e.Err = errNoCredentials
	return e
}

// invalid is a refused credential; cause is logged, never shown.
func invalid(cause error) error {
	return todo.Wrap(todo.Unauthorized, cause, "the credentials are not valid")
}

// bearerChallenge follows RFC 6750 section 3: no error code without
// credentials, invalid_token for a credential that does not verify and
// insufficient_scope for a missing role.
func bearerChallenge(err error) string {
	switch {
	case errors.Is(err, errNoCredentials):
		return "Bearer"
	case todo.IsKind(err, todo.Unauthorized):
		return `Bearer error="invalid_token"`
	case todo.IsKind(err, todo.Forbidden):
		return `Bearer error="insufficient_scope"`
	}
	return ""
}
