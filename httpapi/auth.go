package httpapi

import (
	"fmt"
	"net/http"

	"github.com/todoaudit/todo"
)

// Authenticator returns the calling user of a request.
type Authenticator func(r *http.Request) (string, error)

// Header names of the authentication modes.
const (
	// PrincipalHeader is set by App Service Authentication (EasyAuth), which
	// strips it from incoming requests, so it can be trusted behind it.
	PrincipalHeader = "X-MS-CLIENT-PRINCIPAL-ID"
	// DevUserHeader names the user in dev mode (standalone only).
	DevUserHeader = "X-User-Id"
	// DevDefaultUser is the dev mode user when the header is absent.
	DevDefaultUser = "local"
)

// NewAuthenticator returns the authenticator of an AUTH_MODE.
func NewAuthenticator(mode, singleUser string) (Authenticator, error) {
	switch mode {
	case "easyauth":
		return func(r *http.Request) (string, error) {
			user := r.Header.Get(PrincipalHeader)
			if user == "" {
				return "", todo.Errorf(todo.Unauthorized, "sign in: no %s header from App Service Authentication", PrincipalHeader)
			}
			return user, checkUser(user)
		}, nil
	case "single":
		if err := checkUser(singleUser); err != nil {
			return nil, err
		}
		return func(*http.Request) (string, error) { return singleUser, nil }, nil
	case "dev":
		return func(r *http.Request) (string, error) {
			user := r.Header.Get(DevUserHeader)
			if user == "" {
				user = DevDefaultUser
			}
			return user, checkUser(user)
		}, nil
	}
	return nil, fmt.Errorf("unknown AUTH_MODE %q", mode)
}

func checkUser(user string) error {
	if err := todo.ValidateUserID(user); err != nil {
		return todo.Errorf(todo.Invalid, "the authenticated user id is not usable: %s", todo.Message(err))
	}
	return nil
}
