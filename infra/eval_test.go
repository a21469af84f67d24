package infra_test

import (
	"strings"
)

// The hosting plans main.bicep offers, default first.
var hostingPlans = []string{"flex", "premium"}

// The Cosmos DB capacity modes cosmos.bicep offers, default first.
var capacityModes = []string{"serverless", "autoscale"}

// choice is one value of each parameter a Bicep file branches on, by
// parameter name (hostingPlan in functionapp.bicep, capacityMode in
// cosmos.bicep).
type choice map[string]string

func hosting(plan string) choice { return choice{"hostingPlan": plan} }

// resolve evaluates the few expression forms the Bicep uses to choose by
// plan, for one choice: a variable name, `cond ? a : b` on a chosen
// parameter, `union(a, b, ...)` of objects, `v[param]`, and objects and
// arrays of those. Anything else stays as it is.
func resolve(f *bicepFile, v any, c choice) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = resolve(f, x, c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = resolve(f, x, c)
		}
		return out
	case expr:
		s := string(v)
		if x, ok := f.Vars[s]; ok {
			return resolve(f, x, c)
		}
		if cond, rest, ok := cutTopLevel(s, '?'); ok {
			yes, no, ok := cutTopLevel(rest, ':')
			if t, known := planCondition(f, cond, c); ok && known {
				if t {
					return resolve(f, mustConvert(yes), c)
				}
				return resolve(f, mustConvert(no), c)
			}
			return v
		}
		if inner, ok := strings.CutPrefix(s, "union("); ok && strings.HasSuffix(inner, ")") {
			merged := map[string]any{}
			for _, arg := range splitTopLevel(strings.TrimSuffix(inner, ")")) {
				m, ok := resolve(f, mustConvert(arg), c).(map[string]any)
				if !ok {
					return v
				}
				for k, x := range m {
					merged[k] = x
				}
			}
			return merged
		}
		for param, value := range c {
			if name, ok := strings.CutSuffix(s, "["+param+"]"); ok {
				if m, ok := resolve(f, expr(name), c).(map[string]any); ok {
					return m[value]
				}
			}
		}
	}
	return v
}

// planCondition evaluates `name`, `!cond`, `param == 'x'` and
// `param != 'x'` for a chosen parameter, through variables.
func planCondition(f *bicepFile, cond string, c choice) (value, known bool) {
	cond = strings.TrimSpace(cond)
	if x, ok := strings.CutPrefix(cond, "!"); ok && !strings.HasPrefix(x, "=") {
		v, known := planCondition(f, x, c)
		return !v, known
	}
	if x, ok := f.Vars[cond].(expr); ok {
		return planCondition(f, string(x), c)
	}
	for _, op := range []string{" == ", " != "} {
		name, lit, ok := strings.Cut(cond, op)
		if !ok {
			continue
		}
		got, chosen := c[strings.TrimSpace(name)]
		want, literal := unquote(strings.TrimSpace(lit))
		if !chosen || !literal {
			return false, false
		}
		return (got == want) == (op == " == "), true
	}
	return false, false
}

// withDefaults replaces every parameter reference in v by the parameter's
// literal default, where it has one: what the platform receives when the
// deployment does not set it.
func withDefaults(f *bicepFile, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = withDefaults(f, x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withDefaults(f, x)
		}
		return out
	case expr:
		if p := f.Params[string(v)]; p != nil && p.HasDefault {
			if _, isExpr := p.Default.(expr); !isExpr {
				return p.Default
			}
		}
	}
	return v
}

func mustConvert(raw string) any {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return expr("")
	}
	v, err := convert(raw)
	if err != nil {
		return expr(raw)
	}
	return v
}

// cutTopLevel splits s at the first sep outside strings and brackets.
func cutTopLevel(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			i = skipString(s, i) - 1
		case c == '(' || c == '[' || c == '{':
			i = skipBalanced(s, i) - 1
		case c == sep:
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
		}
	}
	return s, "", false
}

// splitTopLevel splits a call's arguments at top-level commas.
func splitTopLevel(s string) []string {
	var out []string
	for {
		before, after, found := cutTopLevel(s, ',')
		out = append(out, before)
		if !found {
			return out
		}
		s = after
	}
}
