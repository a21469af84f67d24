package config_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/todoaudit/todo/config"
)

// local.settings.json.example lists every setting the handler reads, and
// nothing the handler does not know, except the host's own settings.
func TestLocalSettingsExample(t *testing.T) {
	b, err := os.ReadFile("../local.settings.json.example")
	if err != nil {
		t.Fatal(err)
	}
	// Core Tools reads the file with comments allowed; JSON does not.
	stripped := regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAll(b, nil)
	var f struct {
		Values map[string]string `json:"Values"`
	}
	if err := json.Unmarshal(stripped, &f); err != nil {
		t.Fatalf("example is not JSON once comments are removed: %v", err)
	}
	known := map[string]bool{"FUNCTIONS_WORKER_RUNTIME": true, "AzureWebJobsStorage": true}
	for _, s := range config.Settings {
		known[s.Name] = true
		if config.SetByLauncher(s.Name) {
			continue
		}
		if _, ok := f.Values[s.Name]; !ok {
			t.Errorf("example lacks %s", s.Name)
		}
	}
	for name := range f.Values {
		if !known[name] {
			t.Errorf("example sets %s, which nothing reads", name)
		}
	}
}
