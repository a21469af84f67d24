package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/todoaudit/todo"
)

// maxCredentialBytes bounds the principal header and the bearer token: real
// ones are a few kilobytes.
const maxCredentialBytes = 16 << 10

// Claim types of the principal's identifier and roles: App Service maps
// Entra's oid, sub and roles claims to these URIs, and passes other
// providers' claims under their own names.
const (
	claimObjectID = "http://schemas.microsoft.com/identity/claims/objectidentifier"
	claimNameID   = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier"
	claimRoles    = "roles"
)

// Principal is the decoded X-MS-CLIENT-PRINCIPAL header of App Service
// Authentication.
type Principal struct {
	AuthType string  `json:"auth_typ"`
	Claims   []Claim `json:"claims"`
	NameType string  `json:"name_typ"`
	RoleType string  `json:"role_typ"`
}

// Claim is one claim of a principal.
type Claim struct {
	Type  string `json:"typ"`
	Value string `json:"val"`
}

// ParsePrincipal decodes an X-MS-CLIENT-PRINCIPAL header value.
func ParsePrincipal(header string) (*Principal, error) {
	if len(header) > maxCredentialBytes {
		return nil, errors.New("principal header too long")
	}
	b, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return nil, fmt.Errorf("principal header is not base64: %w", err)
	}
	var p Principal
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("principal header is not a principal: %w", err)
	}
	return &p, nil
}

// ID returns the principal's identifier, the value App Service sets in
// X-MS-CLIENT-PRINCIPAL-ID: the object id (oid) for Microsoft Entra ID,
// else the name identifier (sub).
func (p *Principal) ID() string {
	for _, types := range [][]string{{claimObjectID, "oid"}, {claimNameID, "sub"}} {
		for _, c := range p.Claims {
			if slices.Contains(types, c.Type) && c.Value != "" {
				return c.Value
			}
		}
	}
	return ""
}

// HasRole reports whether the principal holds role: a claim of type roles,
// or of the principal's own role claim type.
func (p *Principal) HasRole(role string) bool {
	for _, c := range p.Claims {
		if (c.Type == claimRoles || p.RoleType != "" && c.Type == p.RoleType) && c.Value == role {
			return true
		}
	}
	return false
}

// identifyPrincipal names the caller from App Service Authentication's
// headers. Both must be present and agree: a request that carries only an id
// did not come through App Service Authentication's token validation.
func identifyPrincipal(r *http.Request, _ Access) (Caller, error) {
	id, encoded := r.Header.Get(PrincipalIDHeader), r.Header.Get(PrincipalHeader)
	if id == "" && encoded == "" {
		return Caller{}, missing("sign in: no %s header from App Service Authentication", PrincipalHeader)
	}
	if id == "" || encoded == "" {
		return Caller{}, invalid(fmt.Errorf("easyauth: %s and %s must come together", PrincipalIDHeader, PrincipalHeader))
	}
	p, err := ParsePrincipal(encoded)
	if err != nil {
		return Caller{}, invalid(fmt.Errorf("easyauth: %w", err))
	}
	if pid := p.ID(); pid != id {
		return Caller{}, invalid(fmt.Errorf("easyauth: %s %q disagrees with the principal's id %q", PrincipalIDHeader, id, pid))
	}
	if err := todo.ValidateUserID(id); err != nil {
		return Caller{}, invalid(fmt.Errorf("easyauth: principal id: %w", err))
	}
	return Caller{User: id, Admin: p.HasRole(AdminRole)}, nil
}
