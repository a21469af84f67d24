package auth

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/todoaudit/todo"
)

// Settings are the authentication settings, as read from the environment.
type Settings struct {
	Mode       string   // AUTH_MODE
	Issuer     string   // AUTH_ISSUER: the OpenID provider entra trusts
	Audience   string   // AUTH_AUDIENCE: the aud entra requires
	SingleUser string   // SINGLE_USER_ID
	AdminUsers []string // ADMIN_USERS: the admins under dev and single
}

// SettingError names the setting that is wrong.
type SettingError struct {
	Setting string
	Problem string
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Problem }

// ParseUsers splits a comma-separated list of user ids, dropping blanks.
func ParseUsers(list string) []string {
	var users []string
	for u := range strings.SplitSeq(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			users = append(users, u)
		}
	}
	return users
}

// Resolve applies the default mode and checks the settings of that mode.
// The default is entra when an issuer is set, else easyauth under the
// Functions host (host) and dev standalone.
func (s *Settings) Resolve(host bool) error {
	if s.Mode == "" {
		switch {
		case s.Issuer != "":
			s.Mode = Entra
		case host:
			s.Mode = EasyAuth
		default:
			s.Mode = Dev
		}
	}
	switch s.Mode {
	case Entra:
		if err := checkIssuer(s.Issuer); err != nil {
			return err
		}
		if s.Audience == "" {
			return &SettingError{"AUTH_AUDIENCE", "entra needs the audience its tokens are issued for (the API's application id)"}
		}
	case EasyAuth:
	case Single:
		if err := todo.ValidateUserID(s.SingleUser); err != nil {
			return &SettingError{"SINGLE_USER_ID", fmt.Sprintf("%q is not a valid user id", s.SingleUser)}
		}
	case Dev:
		if host {
			return &SettingError{"AUTH_MODE", "dev trusts the X-User-Id header and is refused under the Functions host; use entra, easyauth or single"}
		}
	default:
		return &SettingError{"AUTH_MODE", fmt.Sprintf("%q is not entra, easyauth, single or dev", s.Mode)}
	}
	for _, u := range s.AdminUsers {
		if s.Mode != Dev && s.Mode != Single {
			return &SettingError{"ADMIN_USERS", "names admins under dev and single only; under " + s.Mode + " the " + AdminRole + " app role does"}
		}
		if err := todo.ValidateUserID(u); err != nil {
			return &SettingError{"ADMIN_USERS", fmt.Sprintf("%q is not a valid user id", u)}
		}
	}
	return nil
}

// checkIssuer accepts an absolute https URL, or http on a loopback address
// (a local provider).
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if issuer == "" || err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return &SettingError{"AUTH_ISSUER", fmt.Sprintf("%q is not the URL of an OpenID provider (https://login.microsoftonline.com/<tenant id>/v2.0)", issuer)}
	}
	if u.Scheme == "https" {
		return nil
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme == "http" && (u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()) {
		return nil
	}
	return &SettingError{"AUTH_ISSUER", fmt.Sprintf("%q must be https (http only on a loopback address)", issuer)}
}
