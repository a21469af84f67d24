package keyvault

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/todoaudit/todo/transparency"
)

// vaultScope is the token audience of Key Vault.
const vaultScope = "https://vault.azure.net/.default"

// secretsAPIVersion is the Key Vault REST version the secret is read with.
const secretsAPIVersion = "7.5"

// maxSecret bounds what is read of the secret's answer.
const maxSecret = 1 << 16

// Ed25519Keys reads the Ed25519 note signer key (PRIVATE+KEY+origin+…)
// kept as the Key Vault secret at secretURL (https://<vault>/secrets/
// <name>[/<version>]): the key witnesses accept, which Key Vault cannot
// hold as a key. It is one GET through an azcore pipeline with a Key
// Vault token, rather than the secrets SDK module, a dependency for one
// call. o may be nil.
func Ed25519Keys(ctx context.Context, secretURL, origin string, cred azcore.TokenCredential, o *policy.ClientOptions) (*transparency.Keys, error) {
	u, err := url.Parse(secretURL)
	if err != nil {
		u = &url.URL{}
	}
	parts := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || len(parts) < 2 || len(parts) > 3 || parts[0] != "secrets" || parts[1] == "" {
		return nil, fmt.Errorf("LOG_ED25519_SECRET_ID %q is not a Key Vault secret URL https://<vault>/secrets/<name>[/<version>]", secretURL)
	}
	if o == nil {
		o = &policy.ClientOptions{}
	}
	auth := runtime.NewBearerTokenPolicy(cred, []string{vaultScope}, nil)
	pl := runtime.NewPipeline("keyvault-secret", "v1.0.0", runtime.PipelineOptions{PerRetry: []policy.Policy{auth}}, o)
	req, err := runtime.NewRequest(ctx, http.MethodGet, strings.TrimSuffix(secretURL, "/")+"?api-version="+secretsAPIVersion)
	if err != nil {
		return nil, err
	}
	resp, err := pl.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading the secret %s: %w", secretURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSecret))
	if err != nil {
		return nil, fmt.Errorf("reading the secret %s: %w", secretURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading the secret %s: %s", secretURL, runtime.NewResponseError(resp))
	}
	var secret struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &secret); err != nil {
		return nil, fmt.Errorf("the secret %s is not a Key Vault secret bundle", secretURL)
	}
	keys, err := transparency.NewKeys(secret.Value)
	if err != nil {
		return nil, fmt.Errorf("the secret %s: %w", secretURL, err)
	}
	if keys.Signer.Name() != origin {
		return nil, fmt.Errorf("the secret %s signs as %q, not as the log origin %q", secretURL, keys.Signer.Name(), origin)
	}
	return keys, nil
}
