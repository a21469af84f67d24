package config_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
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

// docs/operations.md's table of settings names every setting the handler
// reads, in the first column of a row, and nothing else.
func TestSettingsTableIsComplete(t *testing.T) {
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n## Configuration\n")
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for line := range strings.Lines(section) {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed[m[1]] = true
		}
	}
	known := map[string]bool{}
	for _, s := range config.Settings {
		known[s.Name] = true
		if !listed[s.Name] {
			t.Errorf("docs/operations.md's table of settings lacks %s", s.Name)
		}
	}
	for name := range listed {
		if !known[name] {
			t.Errorf("docs/operations.md's table of settings lists %s, which the handler does not read", name)
		}
	}
}
