package config

import (
	"strings"
)

// UnknownSetting is a variable of the environment that looks like one of
// the handler's settings and is none of them: a misspelt name, or one this
// build does not read.
type UnknownSetting struct {
	Name string
	// Closest is the setting it is nearest to, when one is near.
	Closest string
}

// Unknown lists the variables of environ (NAME=value, as os.Environ gives
// them) that look like the handler's settings but are none of them: those
// within an edit or two of a setting's name (PARTITON_SCHEME), and those
// whose first word is the first word of the settings this product owns
// (AUDIT_RETENTION for AUDIT_RETENTION_DAYS). The handler ignores them, so
// start-up warns of each.
func Unknown(environ []string) []UnknownSetting {
	known := map[string]bool{}
	for _, s := range Settings {
		known[s.Name] = true
	}
	prefixes := ownPrefixes()
	var out []UnknownSetting
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || known[name] {
			continue
		}
		closest, d := nearest(name)
		near := d <= 1 || (d <= 2 && len(name) >= 10)
		prefixed := false
		for _, p := range prefixes {
			prefixed = prefixed || strings.HasPrefix(name, p)
		}
		if !near && !prefixed {
			continue
		}
		if d > len(name)/3 {
			closest = ""
		}
		out = append(out, UnknownSetting{Name: name, Closest: closest})
	}
	return out
}

// ownPrefixes are the first words (up to the first underscore) of the
// settings this product owns: a word that a setting read from the
// platform or a launcher shares (AZURE_, OTEL_, FUNCTIONS_, LISTEN_) is
// theirs, and their other variables are none of the handler's business.
func ownPrefixes() []string {
	foreign := map[string]bool{}
	word := func(name string) string {
		if i := strings.IndexByte(name, '_'); i > 0 {
			return name[:i+1]
		}
		return ""
	}
	for _, s := range []Setting{customHandlerPort, listenFDs, listenPID, azureClientID, otelEndpoint, otelTracesEndpoint, otelMetricsEndpoint, otelServiceName} {
		foreign[word(s.Name)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range Settings {
		if w := word(s.Name); w != "" && !foreign[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// nearest is the setting whose name is fewest edits from name (letters
// compared regardless of case), and how many.
func nearest(name string) (string, int) {
	best, bestD := "", -1
	for _, s := range Settings {
		if d := edits(strings.ToUpper(name), strings.ToUpper(s.Name)); bestD < 0 || d < bestD {
			best, bestD = s.Name, d
		}
	}
	return best, bestD
}

// edits is the Levenshtein distance between a and b, in bytes.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
