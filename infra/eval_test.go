package infra_test

import (
	"strings"
)

// The hosting plans main.bicep offers, default first.
var hostingPlans = []string{"flex", "premium"}

// resolve evaluates the few expression forms the Bicep uses to choose by
// hosting plan, for one plan: a variable name, `cond ? a : b` on the plan,
// `union(a, b, ...)` of objects, `v[hostingPlan]`, and objects and arrays
// of those. Anything else stays as it is.
func resolve(f *bicepFile, v any, plan string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = resolve(f, x, plan)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = resolve(f, x, plan)
		}
		return out
	case expr:
		s := string(v)
		if x, ok := f.Vars[s]; ok {
			return resolve(f, x, plan)
		}
		if cond, rest, ok := cutTopLevel(s, '?'); ok {
			yes, no, ok := cutTopLevel(rest, ':')
			if t, known := planCondition(f, cond, plan); ok && known {
				if t {
					return resolve(f, mustConvert(yes), plan)
				}
				return resolve(f, mustConvert(no), plan)
			}
			return v
		}
		if inner, ok := strings.CutPrefix(s, "union("); ok && strings.HasSuffix(inner, ")") {
			merged := map[string]any{}
			for _, arg := range splitTopLevel(strings.TrimSuffix(inner, ")")) {
				m, ok := resolve(f, mustConvert(arg), plan).(map[string]any)
				if !ok {
					return v
				}
				for k, x := range m {
					merged[k] = x
				}
			}
			return merged
		}
		if name, ok := strings.CutSuffix(s, "[hostingPlan]"); ok {
			if m, ok := resolve(f, expr(name), plan).(map[string]any); ok {
				return m[plan]
			}
		}
	}
	return v
}

// planCondition evaluates `isFlex`, `!isFlex` or `hostingPlan == 'x'`.
func planCondition(f *bicepFile, cond, plan string) (value, known bool) {
	cond = strings.TrimSpace(cond)
	if c, ok := strings.CutPrefix(cond, "!"); ok {
		v, known := planCondition(f, c, plan)
		return !v, known
	}
	if x, ok := f.Vars[cond].(expr); ok {
		return planCondition(f, string(x), plan)
	}
	if name, ok := strings.CutPrefix(cond, "hostingPlan == "); ok {
		want, ok := unquote(strings.TrimSpace(name))
		return want == plan, ok
	}
	return false, false
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
