// Package functions holds the function.json binding files, one folder per
// function, exactly as the Functions host reads them (make stage copies them
// into dist/), and embeds them so the handler and its tests read the same
// bindings: AuditTrigger's binding names and batch size bound what it
// accepts, and the standalone pump takes its retry policy from its file.
package functions

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed */function.json
var files embed.FS

// Binding is one entry of a function.json "bindings" array; only the fields
// this project reads.
type Binding struct {
	Type                  string   `json:"type"`
	Direction             string   `json:"direction"`
	Name                  string   `json:"name"`
	AuthLevel             string   `json:"authLevel"`
	Methods               []string `json:"methods"`
	Route                 string   `json:"route"`
	Connection            string   `json:"connection"`
	MaxItemsPerInvocation int      `json:"maxItemsPerInvocation"`
	Schedule              string   `json:"schedule"`
	RunOnStartup          bool     `json:"runOnStartup"`
	ContainerName         string   `json:"containerName"`
}

// Retry is a function-level retry policy.
type Retry struct {
	Strategy        string `json:"strategy"`
	MaxRetryCount   int    `json:"maxRetryCount"`
	MinimumInterval string `json:"minimumInterval"`
	MaximumInterval string `json:"maximumInterval"`
	DelayInterval   string `json:"delayInterval"`
}

// Function is one function.json.
type Function struct {
	Name     string
	Bindings []Binding `json:"bindings"`
	Retry    *Retry    `json:"retry"`
}

// All returns every function, sorted by name. The files are parsed once,
// on first use: callers share the result and must not modify it.
func All() ([]Function, error) { return parsed() }

var parsed = sync.OnceValues(parse)

func parse() ([]Function, error) {
	dirs, err := fs.Glob(files, "*/function.json")
	if err != nil {
		return nil, err
	}
	var out []Function
	for _, p := range dirs {
		b, err := files.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f := Function{Name: path.Dir(p)}
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Function) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Get returns the named function.
func Get(name string) (Function, error) {
	all, err := All()
	if err != nil {
		return Function{}, err
	}
	for _, f := range all {
		if f.Name == name {
			return f, nil
		}
	}
	return Function{}, fmt.Errorf("no function %q", name)
}

// Trigger returns the function's trigger binding (direction in, type ending
// in "Trigger").
func (f Function) Trigger() (Binding, bool) {
	for _, b := range f.Bindings {
		if b.Direction == "in" && strings.HasSuffix(b.Type, "Trigger") {
			return b, true
		}
	}
	return Binding{}, false
}

// Output returns the first output binding of the given type.
func (f Function) Output(typ string) (Binding, bool) {
	for _, b := range f.Bindings {
		if b.Direction == "out" && b.Type == typ {
			return b, true
		}
	}
	return Binding{}, false
}

// Delays returns the waits before each retry the policy allows: fixed, or
// doubling from the minimum up to the maximum. Nil when there is no policy.
func (r *Retry) Delays() ([]time.Duration, error) {
	if r == nil {
		return nil, nil
	}
	out := make([]time.Duration, 0, r.MaxRetryCount)
	switch r.Strategy {
	case "fixedDelay":
		d, err := parseTimeSpan(r.DelayInterval)
		if err != nil {
			return nil, err
		}
		for range r.MaxRetryCount {
			out = append(out, d)
		}
	case "exponentialBackoff":
		lo, err := parseTimeSpan(r.MinimumInterval)
		if err != nil {
			return nil, err
		}
		hi, err := parseTimeSpan(r.MaximumInterval)
		if err != nil {
			return nil, err
		}
		d := lo
		for range r.MaxRetryCount {
			out = append(out, min(d, hi))
			d *= 2
		}
	default:
		return nil, fmt.Errorf("unknown retry strategy %q", r.Strategy)
	}
	return out, nil
}

// parseTimeSpan reads a .NET TimeSpan of the form hh:mm:ss.
func parseTimeSpan(s string) (time.Duration, error) {
	var h, m, sec int
	if _, err := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec); err != nil {
		return 0, fmt.Errorf("time span %q is not hh:mm:ss", s)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second, nil
}
