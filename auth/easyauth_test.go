package auth

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth/authtest"
)

func principalHeader(json string) string { return base64.StdEncoding.EncodeToString([]byte(json)) }

func TestPrincipalIDAndRoles(t *testing.T) {
	cases := []struct {
		json  string
		id    string
		admin bool
	}{
		// Entra through App Service: the object id, roles under "roles".
		{`{"auth_typ":"aad","claims":[{"typ":"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier","val":"sub-1"},{"typ":"http://schemas.microsoft.com/identity/claims/objectidentifier","val":"oid-1"},{"typ":"roles","val":"Todo.Admin"}],"role_typ":"http://schemas.microsoft.com/ws/2008/06/identity/claims/role"}`, "oid-1", true},
		// Unmapped claim names, the role under the principal's role_typ.
		{`{"auth_typ":"aad","claims":[{"typ":"oid","val":"oid-2"},{"typ":"r","val":"Todo.Admin"}],"role_typ":"r"}`, "oid-2", true},
		// Another provider: the name identifier; a role of another type
		// does not count.
		{`{"auth_typ":"google","claims":[{"typ":"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier","val":"g-3"},{"typ":"groups","val":"Todo.Admin"}]}`, "g-3", false},
		{`{"auth_typ":"aad","claims":[]}`, "", false},
	}
	for _, tc := range cases {
		p, err := ParsePrincipal(principalHeader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if p.ID() != tc.id || p.HasRole(AdminRole) != tc.admin {
			t.Errorf("%s: id %q admin %v, want %q %v", tc.json, p.ID(), p.HasRole(AdminRole), tc.id, tc.admin)
		}
	}
}

func easyAuthRequest(id, principal string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/todos", nil)
	if id != "" {
		r.Header.Set(PrincipalIDHeader, id)
	}
	if principal != "" {
		r.Header.Set(PrincipalHeader, principal)
	}
	return r
}

// The principal headers, however malformed, never panic and never name a
// caller other than the one both headers agree on.
func FuzzPrincipal(f *testing.F) {
	f.Add("oid-1", authtest.Principal("oid-1", AdminRole))
	f.Add("oid-1", authtest.Principal("oid-2"))
	f.Add("oid-1", "")
	f.Add("", authtest.Principal("oid-1"))
	f.Add("a/b", authtest.Principal("a/b"))
	f.Add("oid-1", principalHeader(`{"claims":[{"typ":"oid","val":1}]}`))
	f.Add("oid-1", "not base64")
	f.Fuzz(func(t *testing.T, id, principal string) {
		c, err := identifyPrincipal(easyAuthRequest(id, principal), Admin)
		if err != nil {
			if !todo.IsKind(err, todo.Unauthorized) {
				t.Fatalf("refused with kind %v: %v", todo.KindOf(err), err)
			}
			if errors.Is(err, errNoCredentials) != (id == "" && principal == "") {
				t.Fatalf("id %q principal %q: no-credentials %v", id, principal, err)
			}
			return
		}
		p, perr := ParsePrincipal(principal)
		if perr != nil || c.User != id || p.ID() != id || todo.ValidateUserID(id) != nil || c.Admin != p.HasRole(AdminRole) {
			t.Fatalf("accepted %+v for id %q and principal %q", c, id, principal)
		}
	})
}

// Whatever arrives in Authorization, only a token the provider's key signed
// with the right claims names a caller; nothing panics.
func FuzzBearer(f *testing.F) {
	key := authtest.NewKey(f, "k1")
	idp := authtest.Start(f, key)
	valid := authtest.Sign(f, key, idp.Claims(testAudience, "oid-1"))
	wrongAudience := authtest.Sign(f, key, idp.Claims("api://other", "oid-1"))
	for _, s := range []string{
		"Bearer " + valid,
		"Bearer " + wrongAudience,
		"Bearer " + authtest.Unsigned(f, idp.Claims(testAudience, "oid-1")),
		"Bearer " + authtest.SignHS256WithPublicKey(f, key, idp.Claims(testAudience, "oid-1")),
		"Bearer " + authtest.SignJSONSerialization(f, key, idp.Claims(testAudience, "oid-1")),
		"Bearer " + valid[:10] + " " + valid[10:],
		"Bearer a.b.c", "Bearer", "Basic eA==", "", "bearer  " + valid,
	} {
		f.Add(s)
	}
	e := newEntra(idp.Issuer, testAudience, quiet, nil)
	if err := e.discover(f.Context()); err != nil {
		f.Fatal(err)
	}
	// Unknown key ids fail their fetch at once: the fuzzer must not depend
	// on the network.
	e.keys.Load().client = &http.Client{Transport: offline{}}
	e.keys.Load().minRefresh = 0
	f.Fuzz(func(t *testing.T, authorization string) {
		r := httptest.NewRequest(http.MethodGet, "/api/todos", nil)
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		c, err := e.identify(r, User)
		if err != nil {
			if k := todo.KindOf(err); k != todo.Unauthorized && k != todo.Unavailable {
				t.Fatalf("refused with kind %v: %v", k, err)
			}
			return
		}
		token, _ := bearerToken(r)
		if token != valid || c.User != "oid-1" {
			t.Fatalf("accepted %q as %+v", authorization, c)
		}
	})
}

// offline fails every request without touching the network.
type offline struct{}

func (offline) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("offline")
}
