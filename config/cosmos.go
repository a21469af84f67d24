package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// cosmosConnection applies the CosmosDB connection string and checks where
// a key may go. The Cosmos DB trigger reads the setting named by its
// connection ("CosmosDB") as a connection string when it has a value, and
// as the identity section CosmosDB__* otherwise; the handler reads it the
// same way, so one local.settings.json serves both.
func cosmosConnection(c *Config, get func(string) string) error {
	if cs := get("CosmosDB"); cs != "" {
		if get("CosmosDB__accountEndpoint") != "" || get("COSMOS_ENDPOINT") != "" || get("COSMOS_KEY") != "" {
			return &Error{"CosmosDB", "set either the CosmosDB connection string or CosmosDB__accountEndpoint (COSMOS_ENDPOINT, COSMOS_KEY), not both"}
		}
		endpoint, key, err := parseConnectionString(cs)
		if err != nil {
			return &Error{"CosmosDB", err.Error()}
		}
		c.CosmosEndpoint, c.CosmosKey = endpoint, key
	}
	allow, err := strconv.ParseBool(get("COSMOS_ALLOW_REMOTE_KEY"))
	if err != nil {
		return &Error{"COSMOS_ALLOW_REMOTE_KEY", fmt.Sprintf("%q is not true or false", get("COSMOS_ALLOW_REMOTE_KEY"))}
	}
	if c.CosmosKey != "" && c.CosmosEndpoint != "" && !allow && !isLocal(c.CosmosEndpoint) {
		setting := "COSMOS_KEY"
		if get("CosmosDB") != "" {
			setting = "CosmosDB"
		}
		return &Error{setting, fmt.Sprintf("a key for %s, which is not on this machine: keys are for the local emulator. "+
			"For an Azure account use your identity (CosmosDB__accountEndpoint, no key), or set COSMOS_ALLOW_REMOTE_KEY=true", hostOf(c.CosmosEndpoint))}
	}
	return nil
}

// parseConnectionString reads AccountEndpoint=…;AccountKey=…; (names are
// case-insensitive; a key may end in =). Errors never quote the key.
func parseConnectionString(cs string) (endpoint, key string, err error) {
	for part := range strings.SplitSeq(cs, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return "", "", fmt.Errorf("is not a connection string of name=value pairs (AccountEndpoint=…;AccountKey=…;)")
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "accountendpoint":
			endpoint = strings.TrimSpace(value)
		case "accountkey":
			key = strings.TrimSpace(value)
		}
	}
	if endpoint == "" || key == "" {
		return "", "", fmt.Errorf("needs both AccountEndpoint and AccountKey (AccountEndpoint=https://localhost:8081/;AccountKey=…;)")
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", "", fmt.Errorf("AccountEndpoint %q is not an http(s) URL", endpoint)
	}
	return endpoint, key, nil
}

// isLocal reports whether an endpoint is on this machine: localhost or a
// loopback address, where the emulator runs.
func isLocal(endpoint string) bool {
	host := hostOf(endpoint)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
