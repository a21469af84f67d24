package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/todoaudit/todo/cmd/partition-analyzer/analyze"
)

func TestGenerateThenAnalyze(t *testing.T) {
	dir := t.TempDir()
	var gen bytes.Buffer
	if err := run([]string{"generate", "--users", "20", "--todos", "500", "--scheme", "synthetic", "--buckets", "5"}, nil, &gen, os.Stderr); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "todos.jsonl")
	if err := os.WriteFile(file, append(gen.Bytes(), []byte("oops\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	svg := filepath.Join(dir, "chart.svg")
	if err := run([]string{"--json", "--buckets", "5", "--svg", svg, file}, nil, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	var rep analyze.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Input.Todos != 500 || rep.Input.Read.Malformed != 1 || len(rep.Schemes) != 3 || rep.Recommendation.Scheme == "" {
		t.Fatalf("report %+v", rep.Input)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
	}
	err := run([]string{"--strict", file}, nil, &out, os.Stderr)
	lines := bytes.Count(gen.Bytes(), []byte("\n"))
	if err == nil || !strings.Contains(err.Error(), "line "+strconv.Itoa(lines+1)+": not a JSON object") {
		t.Fatalf("strict: %v", err)
	}
	if err := run([]string{"--generate", file}, nil, &out, os.Stderr); err == nil {
		t.Fatal("both --generate and a file accepted")
	}
}
