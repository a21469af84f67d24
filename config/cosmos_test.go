package config_test

import (
	"strings"
	"testing"
)

const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// The CosmosDB connection string the trigger reads also configures the
// handler: endpoint, key, and so the Cosmos store.
func TestCosmosDBConnectionString(t *testing.T) {
	for _, cs := range []string{
		"AccountEndpoint=https://localhost:8081/;AccountKey=" + emulatorKey + ";",
		"accountendpoint=https://localhost:8081/; accountkey=" + emulatorKey,
	} {
		c, err := load(map[string]string{"CosmosDB": cs})
		if err != nil {
			t.Fatalf("%q: %v", cs, err)
		}
		if c.CosmosEndpoint != "https://localhost:8081/" || c.CosmosKey != emulatorKey || c.Store != "cosmos" {
			t.Fatalf("%q: endpoint %q, key %q, store %q", cs, c.CosmosEndpoint, c.CosmosKey, c.Store)
		}
	}
	for _, endpoint := range []string{"http://127.0.0.1:8081/", "https://[::1]:8081/", "http://cosmos.localhost:8081/"} {
		if _, err := load(map[string]string{"CosmosDB": "AccountEndpoint=" + endpoint + ";AccountKey=k;"}); err != nil {
			t.Errorf("%s is local: %v", endpoint, err)
		}
	}
}

// A key never goes to an account off this machine unless the deployer says
// so; error messages never quote it.
func TestRemoteKeyRefused(t *testing.T) {
	remote := "AccountEndpoint=https://prod.documents.azure.com:443/;AccountKey=" + emulatorKey + ";"
	for _, kv := range []map[string]string{
		{"CosmosDB": remote},
		{"COSMOS_ENDPOINT": "https://prod.documents.azure.com:443/", "COSMOS_KEY": emulatorKey},
		{"CosmosDB": strings.Replace(remote, "prod.documents.azure.com", "10.0.0.5", 1)},
		{"CosmosDB": remote, "COSMOS_ALLOW_REMOTE_KEY": "false"},
	} {
		_, err := load(kv)
		if err == nil || !strings.Contains(err.Error(), "COSMOS_ALLOW_REMOTE_KEY") || strings.Contains(err.Error(), emulatorKey) {
			t.Errorf("%v: %v", kv, err)
		}
	}
	c, err := load(map[string]string{"CosmosDB": remote, "COSMOS_ALLOW_REMOTE_KEY": "true"})
	if err != nil || c.CosmosKey != emulatorKey {
		t.Fatalf("allowed remote key: %v %+v", err, c)
	}
	// Identity to an Azure account needs no permission.
	if _, err := load(map[string]string{"CosmosDB__accountEndpoint": "https://prod.documents.azure.com:443/"}); err != nil {
		t.Fatal(err)
	}
}

func TestBadCosmosDBConnectionString(t *testing.T) {
	for _, kv := range []map[string]string{
		{"CosmosDB": "AccountEndpoint=https://localhost:8081/"},
		{"CosmosDB": "AccountKey=" + emulatorKey},
		{"CosmosDB": "https://localhost:8081/"},
		{"CosmosDB": "AccountEndpoint=localhost:8081;AccountKey=" + emulatorKey},
		{"CosmosDB": "AccountEndpoint=https://localhost:8081/;AccountKey=" + emulatorKey, "CosmosDB__accountEndpoint": "https://a.documents.azure.com/"},
		{"CosmosDB": "AccountEndpoint=https://localhost:8081/;AccountKey=" + emulatorKey, "COSMOS_KEY": "x"},
	} {
		_, err := load(kv)
		if err == nil || !strings.Contains(err.Error(), "CosmosDB") || strings.Contains(err.Error(), emulatorKey) {
			t.Errorf("%v: %v", kv, err)
		}
	}
	if _, err := load(map[string]string{"COSMOS_ALLOW_REMOTE_KEY": "maybe"}); err == nil || !strings.Contains(err.Error(), "COSMOS_ALLOW_REMOTE_KEY") {
		t.Errorf("COSMOS_ALLOW_REMOTE_KEY=maybe: %v", err)
	}
}
