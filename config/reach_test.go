package config_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo/config"
)

// AUTH_MODE=dev takes the caller's word for who they are, so it listens
// only where other machines cannot reach it, unless a setting says so.
func TestDevModeStaysOnLoopback(t *testing.T) {
	for _, tc := range []struct {
		kv     map[string]string
		refuse bool
	}{
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:7071"}, true},
		{map[string]string{"LISTEN_ADDR": ":7071"}, true},
		{map[string]string{"LISTEN_ADDR": "192.0.2.10:7071", "AUTH_MODE": "dev"}, true},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:7071"}, false},
		{map[string]string{"LISTEN_ADDR": "[::1]:7071"}, false},
		{map[string]string{"LISTEN_ADDR": "localhost:7071"}, false},
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:7071", "AUTH_DEV_ALLOW_REMOTE": "true"}, false},
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:7071", "AUTH_MODE": "single"}, false},
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:7071", "LISTEN_FDS": "1"}, false},
	} {
		_, err := load(tc.kv)
		var e *config.Error
		switch {
		case tc.refuse && (!errors.As(err, &e) || e.Setting != "LISTEN_ADDR" || !strings.Contains(e.Problem, "AUTH_DEV_ALLOW_REMOTE")):
			t.Errorf("%v: %v, want LISTEN_ADDR refused, pointing to AUTH_DEV_ALLOW_REMOTE", tc.kv, err)
		case !tc.refuse && err != nil:
			t.Errorf("%v: %v", tc.kv, err)
		}
	}
	if _, err := load(map[string]string{"AUTH_DEV_ALLOW_REMOTE": "yes please"}); err == nil {
		t.Error("AUTH_DEV_ALLOW_REMOTE=yes please accepted")
	}
}

// A variable that looks like a setting and is none is found: a misspelt
// name, or an unknown one with a word of the product's settings; the
// platform's and the launcher's variables are left alone.
func TestUnknownSettings(t *testing.T) {
	env := []string{
		"PARTITON_SCHEME=category", "partition_scheme=category", "AUDIT_RETENTION=200", "COSMOS_CONTAINER=x",
		"PARTITION_SCHEME=hierarchical", "PATH=/bin", "HOME=/root", "OTEL_RESOURCE_ATTRIBUTES=a=b",
		"AZURE_TENANT_ID=t", "FUNCTIONS_WORKER_RUNTIME=custom", "LISTEN_FDNAMES=x", "WEBSITE_SITE_NAME=app", "TERM=xterm",
	}
	var got []string
	for _, u := range config.Unknown(env) {
		got = append(got, u.Name+"→"+u.Closest)
	}
	want := []string{"PARTITON_SCHEME→PARTITION_SCHEME", "partition_scheme→PARTITION_SCHEME", "AUDIT_RETENTION→AUDIT_RETENTION_DAYS", "COSMOS_CONTAINER→COSMOS_TODO_CONTAINER"}
	if !slices.Equal(got, want) {
		t.Fatalf("unknown settings %q, want %q", got, want)
	}
}
