package config_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/config"
)

func load(kv map[string]string) (*config.Config, error) {
	return config.Load(func(k string) (string, bool) { v, ok := kv[k]; return v, ok })
}

func TestDefaults(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != config.Standalone || c.ListenAddr != "127.0.0.1:7071" || c.Store != "embedded" ||
		c.Scheme != "hierarchical" || c.Auth.Mode != "dev" || c.Database != "todoapp" || c.MaxBodyBytes != 1<<20 {
		t.Fatalf("defaults: %+v", c)
	}
	h, err := load(map[string]string{"FUNCTIONS_CUSTOMHANDLER_PORT": "4711", "CosmosDB__accountEndpoint": "https://a.documents.azure.com:443/"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Mode != config.Host || h.ListenAddr != "127.0.0.1:4711" || h.Store != "cosmos" || h.Auth.Mode != "easyauth" {
		t.Fatalf("host defaults: %+v", h)
	}
}

// A socket handed over by systemd (or a test) is taken only when it is
// meant for this process.
func TestInheritedListener(t *testing.T) {
	for _, tc := range []struct {
		kv   map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"LISTEN_FDS": "1"}, true},
		{map[string]string{"LISTEN_FDS": "1", "LISTEN_PID": strconv.Itoa(os.Getpid())}, true},
		{map[string]string{"LISTEN_FDS": "1", "LISTEN_PID": "1"}, false},
		{map[string]string{"LISTEN_FDS": "0"}, false},
	} {
		c, err := load(tc.kv)
		if err != nil || c.InheritedListener != tc.want {
			t.Errorf("%v: inherited %v, %v; want %v", tc.kv, c != nil && c.InheritedListener, err, tc.want)
		}
	}
}

// CORS is off by default; exact origins and * are read as given.
func TestCORSOrigins(t *testing.T) {
	c, _ := load(nil)
	if len(c.CORSAllowedOrigins) != 0 || c.CORSAllowCredentials {
		t.Fatalf("default CORS: %v %v", c.CORSAllowedOrigins, c.CORSAllowCredentials)
	}
	c, err := load(map[string]string{"CORS_ALLOWED_ORIGINS": " https://app.example.com, http://127.0.0.1:5173 ,", "CORS_ALLOW_CREDENTIALS": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.CORSAllowedOrigins, " ") != "https://app.example.com http://127.0.0.1:5173" || !c.CORSAllowCredentials {
		t.Fatalf("origins %q credentials %v", c.CORSAllowedOrigins, c.CORSAllowCredentials)
	}
	if c, err := load(map[string]string{"CORS_ALLOWED_ORIGINS": "*"}); err != nil || strings.Join(c.CORSAllowedOrigins, " ") != "*" {
		t.Fatalf("*: %v %v", c, err)
	}
}

func TestManagedIdentityClientID(t *testing.T) {
	c, _ := load(map[string]string{"AZURE_CLIENT_ID": "sp"})
	if c.CosmosClientID != "" {
		t.Fatalf("AZURE_CLIENT_ID alone selected a managed identity: %+v", c)
	}
	c, _ = load(map[string]string{"AZURE_CLIENT_ID": "mi", "CosmosDB__credential": "managedidentity"})
	if c.CosmosClientID != "mi" {
		t.Fatalf("client id %q, want mi", c.CosmosClientID)
	}
}

var badSettings = []struct {
	kv      map[string]string
	setting string
}{
	{map[string]string{"FUNCTIONS_CUSTOMHANDLER_PORT": "http"}, "FUNCTIONS_CUSTOMHANDLER_PORT"},
	{map[string]string{"LISTEN_ADDR": "7071"}, "LISTEN_ADDR"},
	{map[string]string{"LISTEN_FDS": "2"}, "LISTEN_FDS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "*", "CORS_ALLOW_CREDENTIALS": "true"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "https://a.example, *"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "https://app.example.com/"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "https://app.example.com/path"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "https://*.example.com"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "app.example.com"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "https://App.example.com"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOWED_ORIGINS": "ftp://app.example.com"}, "CORS_ALLOWED_ORIGINS"},
	{map[string]string{"CORS_ALLOW_CREDENTIALS": "yes"}, "CORS_ALLOW_CREDENTIALS"},
	{map[string]string{"STORE": "sql"}, "STORE"},
	{map[string]string{"STORE": "cosmos"}, "CosmosDB__accountEndpoint"},
	{map[string]string{"PARTITION_SCHEME": "id"}, "PARTITION_SCHEME"},
	{map[string]string{"SYNTHETIC_BUCKETS": "0"}, "SYNTHETIC_BUCKETS"},
	{map[string]string{"SYNTHETIC_BUCKETS": "many"}, "SYNTHETIC_BUCKETS"},
	{map[string]string{"AUTH_MODE": "none"}, "AUTH_MODE"},
	{map[string]string{"AUTH_MODE": "dev", "FUNCTIONS_CUSTOMHANDLER_PORT": "4711"}, "AUTH_MODE"},
	{map[string]string{"MAX_BODY_BYTES": "3000000"}, "MAX_BODY_BYTES"},
	{map[string]string{"VERSION_TTL_SECONDS": "-1"}, "VERSION_TTL_SECONDS"},
	{map[string]string{"AUDIT_RETENTION_DAYS": "179"}, "AUDIT_RETENTION_DAYS"},
	{map[string]string{"AUDIT_RETENTION_DAYS": "a year"}, "AUDIT_RETENTION_DAYS"},
	{map[string]string{"COSMOS_TODO_CONTAINER": "a/b"}, "COSMOS_TODO_CONTAINER"},
	{map[string]string{"CosmosDB__credential": "secret"}, "CosmosDB__credential"},
	{map[string]string{"AUDIT_PUMP": "yes"}, "AUDIT_PUMP"},
	{map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL"},
	{map[string]string{"AUTH_MODE": "single", "SINGLE_USER_ID": "a/b"}, "SINGLE_USER_ID"},
	{map[string]string{"AUTH_MODE": "entra", "AUTH_AUDIENCE": "api"}, "AUTH_ISSUER"},
	{map[string]string{"AUTH_ISSUER": "http://login.example.com/t/v2.0", "AUTH_AUDIENCE": "api"}, "AUTH_ISSUER"},
	{map[string]string{"AUTH_ISSUER": "not a url", "AUTH_AUDIENCE": "api"}, "AUTH_ISSUER"},
	{map[string]string{"AUTH_ISSUER": "https://login.microsoftonline.com/t/v2.0"}, "AUTH_AUDIENCE"},
	{map[string]string{"ADMIN_USERS": "alice,a/b"}, "ADMIN_USERS"},
	{map[string]string{"AUTH_MODE": "easyauth", "ADMIN_USERS": "alice"}, "ADMIN_USERS"},
	{map[string]string{"STORE_TIMEOUT": "soon"}, "STORE_TIMEOUT"},
	{map[string]string{"STORE_TIMEOUT": "0"}, "STORE_TIMEOUT"},
	{map[string]string{"STORE_OPEN_TIMEOUT": "-5s"}, "STORE_OPEN_TIMEOUT"},
	{map[string]string{"SHUTDOWN_TIMEOUT": "2h"}, "SHUTDOWN_TIMEOUT"},
}

// Timeouts take a Go duration or a whole number of seconds.
func TestTimeouts(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.StoreOpenTimeout != 60*time.Second || c.StoreTimeout != 10*time.Second || c.ShutdownTimeout != 20*time.Second {
		t.Fatalf("default timeouts: %+v", c)
	}
	c, err = load(map[string]string{"STORE_TIMEOUT": "1500ms", "SHUTDOWN_TIMEOUT": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if c.StoreTimeout != 1500*time.Millisecond || c.ShutdownTimeout != 5*time.Second {
		t.Fatalf("timeouts: %+v", c)
	}
}

// A bad setting fails with one line that names it.
func TestBadSettings(t *testing.T) {
	for _, tc := range badSettings {
		_, err := load(tc.kv)
		if err == nil {
			t.Errorf("%v: no error", tc.kv)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.setting) || strings.Contains(msg, "\n") {
			t.Errorf("%v: error %q does not name %s on one line", tc.kv, msg, tc.setting)
		}
	}
}

// Audit records are kept forever unless AUDIT_RETENTION_DAYS says how
// long, which may not be less than the floor.
func TestAuditRetention(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{{"", 0}, {"180", 180 * 24 * time.Hour}, {"3650", 3650 * 24 * time.Hour}} {
		c, err := load(map[string]string{"AUDIT_RETENTION_DAYS": tc.v})
		if err != nil || c.AuditRetention != tc.want {
			t.Fatalf("AUDIT_RETENTION_DAYS=%q: %v, %v; want %v", tc.v, c.AuditRetention, err, tc.want)
		}
	}
	_, err := load(map[string]string{"AUDIT_RETENTION_DAYS": "90"})
	if err == nil || !strings.Contains(err.Error(), "AUDIT_RETENTION_DAYS: 90 days is below the floor of 180 days") {
		t.Fatalf("90 days: %v", err)
	}
}

// The web page signs in as AUTH_CLIENT_ID for AUTH_SCOPE, by default the
// API's own audience and its .default scope.
func TestWebSignIn(t *testing.T) {
	entra := map[string]string{"AUTH_ISSUER": "https://login.microsoftonline.com/t/v2.0"}
	for _, tc := range []struct {
		kv            map[string]string
		client, scope string
	}{
		{map[string]string{"AUTH_AUDIENCE": "11111111-2222-3333-4444-555555555555"}, "11111111-2222-3333-4444-555555555555", "api://11111111-2222-3333-4444-555555555555/.default"},
		{map[string]string{"AUTH_AUDIENCE": "api://todo"}, "api://todo", "api://todo/.default"},
		{map[string]string{"AUTH_AUDIENCE": "api://todo", "AUTH_CLIENT_ID": "spa", "AUTH_SCOPE": "api://todo/Todo.ReadWrite"}, "spa", "api://todo/Todo.ReadWrite"},
	} {
		for k, v := range entra {
			tc.kv[k] = v
		}
		c, err := load(tc.kv)
		if err != nil {
			t.Fatal(err)
		}
		if c.WebClientID != tc.client || c.WebScope != tc.scope {
			t.Errorf("%v: client %q scope %q, want %q and %q", tc.kv, c.WebClientID, c.WebScope, tc.client, tc.scope)
		}
	}
}
