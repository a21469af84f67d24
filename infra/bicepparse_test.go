package infra_test

// A reader for the subset of Bicep that infra/bicep uses: top-level param,
// var, resource, module and output declarations with their decorators, and
// object, array, string, number and boolean literals inside them. Anything
// else in a value position (function calls, member access, ternaries, for
// expressions) is kept as its source text, an expr. Syntax is checked by
// infra/bicep-lint.mjs; this reader only needs to find the declarations
// and fails loudly on anything it does not understand, so that a change of
// style shows up as a test failure rather than as a silently skipped check.

import (
	"fmt"
	"strconv"
	"strings"
)

// expr is a Bicep expression kept as source text (trimmed).
type expr string

type bicepParam struct {
	Name       string
	Type       string
	Default    any // nil when there is none
	HasDefault bool
	Decorators map[string]any // decorator name -> its first argument
}

type bicepResource struct {
	Name       string
	Type       string // e.g. Microsoft.Web/sites
	APIVersion string
	Existing   bool
	Condition  string         // the if (...) condition, or ""
	Body       map[string]any // nil for a for-expression (see Raw)
	Raw        string
}

type bicepModule struct {
	Name string
	Path string
	Body map[string]any
}

type bicepOutput struct {
	Name       string
	Type       string
	Value      any
	Raw        string
	Decorators map[string]any
}

type bicepFile struct {
	Params    map[string]*bicepParam
	Vars      map[string]any
	Resources []*bicepResource
	Modules   map[string]*bicepModule
	Outputs   []*bicepOutput
	Using     string         // .bicepparam only
	Assigns   map[string]any // .bicepparam only: param name = value
}

// stripComments removes // and /* */ comments outside strings, keeping line
// breaks so that error positions stay meaningful.
func stripComments(src string) string {
	var b strings.Builder
	i := 0
	for i < len(src) {
		switch {
		case strings.HasPrefix(src[i:], "'''"):
			end := strings.Index(src[i+3:], "'''")
			if end < 0 {
				b.WriteString(src[i:])
				return b.String()
			}
			b.WriteString(src[i : i+3+end+3])
			i += 3 + end + 3
		case src[i] == '\'':
			j := skipString(src, i)
			b.WriteString(src[i:j])
			i = j
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			for _, c := range src[i : i+2+end+2] {
				if c == '\n' {
					b.WriteByte('\n')
				}
			}
			i += 2 + end + 2
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String()
}

// skipString returns the index just after the single-quoted string that
// starts at src[i] (escapes and ${...} interpolations included).
func skipString(src string, i int) int {
	if strings.HasPrefix(src[i:], "'''") {
		end := strings.Index(src[i+3:], "'''")
		if end < 0 {
			return len(src)
		}
		return i + 3 + end + 3
	}
	i++ // opening quote
	for i < len(src) {
		switch {
		case src[i] == '\\':
			i += 2
		case src[i] == '\'':
			return i + 1
		case strings.HasPrefix(src[i:], "${"):
			i = skipBalanced(src, i+1) // from the '{'
		default:
			i++
		}
	}
	return len(src)
}

// skipBalanced returns the index just after the bracket that closes the one
// at src[i] ('(', '[' or '{'), skipping strings.
func skipBalanced(src string, i int) int {
	depth := 0
	for i < len(src) {
		switch c := src[i]; c {
		case '\'':
			i = skipString(src, i)
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(src)
}

type bicepParser struct {
	src string
	pos int
}

func (p *bicepParser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.src[:min(p.pos, len(p.src))], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *bicepParser) eof() bool { return p.pos >= len(p.src) }

// skipSpace skips blanks; with newlines it also skips line breaks.
func (p *bicepParser) skipSpace(newlines bool) {
	for !p.eof() {
		c := p.src[p.pos]
		if c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n') {
			p.pos++
			continue
		}
		return
	}
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

func (p *bicepParser) ident() string {
	start := p.pos
	for !p.eof() && isIdentByte(p.src[p.pos], p.pos == start) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *bicepParser) expect(s string) error {
	p.skipSpace(false)
	if !strings.HasPrefix(p.src[p.pos:], s) {
		return p.errorf("expected %q", s)
	}
	p.pos += len(s)
	return nil
}

// stringLit reads a simple single-quoted string (no interpolation).
func (p *bicepParser) stringLit() (string, error) {
	p.skipSpace(false)
	if p.eof() || p.src[p.pos] != '\'' {
		return "", p.errorf("expected a string")
	}
	end := skipString(p.src, p.pos)
	s, ok := unquote(p.src[p.pos:end])
	if !ok {
		return "", p.errorf("unsupported string %s", p.src[p.pos:end])
	}
	p.pos = end
	return s, nil
}

func unquote(raw string) (string, bool) {
	if strings.HasPrefix(raw, "'''") {
		return strings.TrimSuffix(strings.TrimPrefix(raw, "'''"), "'''"), true
	}
	if len(raw) < 2 || raw[0] != '\'' || raw[len(raw)-1] != '\'' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) {
			i++
			switch inner[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(inner[i])
			}
			continue
		}
		b.WriteByte(inner[i])
	}
	return b.String(), true
}

// rawValue reads the source text of one value: up to a line break, a comma
// or a closing bracket at nesting depth zero.
func (p *bicepParser) rawValue() string {
	p.skipSpace(false)
	start := p.pos
	depth := 0
	for !p.eof() {
		c := p.src[p.pos]
		switch {
		case c == '\'':
			p.pos = skipString(p.src, p.pos)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return strings.TrimSpace(p.src[start:p.pos])
			}
			depth--
		case (c == '\n' || c == ',') && depth == 0:
			return strings.TrimSpace(p.src[start:p.pos])
		}
		p.pos++
	}
	return strings.TrimSpace(p.src[start:p.pos])
}

func (p *bicepParser) value() (any, error) {
	raw := p.rawValue()
	if raw == "" {
		return nil, p.errorf("missing value")
	}
	return convert(raw)
}

// convert turns the source text of a value into Go values: map[string]any,
// []any, string, int, bool, nil, or expr for anything else.
func convert(raw string) (any, error) {
	switch {
	case raw == "true":
		return true, nil
	case raw == "false":
		return false, nil
	case raw == "null":
		return nil, nil
	case raw[0] == '{' && skipBalanced(raw, 0) == len(raw):
		return parseObject(raw[1 : len(raw)-1])
	case raw[0] == '[' && skipBalanced(raw, 0) == len(raw) && !strings.HasPrefix(strings.TrimSpace(raw[1:]), "for "):
		return parseArray(raw[1 : len(raw)-1])
	case raw[0] == '\'' && skipString(raw, 0) == len(raw):
		if s, ok := unquote(raw); ok {
			return s, nil
		}
	}
	if n, err := strconv.Atoi(raw); err == nil {
		return n, nil
	}
	return expr(raw), nil
}

func parseObject(inner string) (map[string]any, error) {
	p := &bicepParser{src: inner}
	obj := map[string]any{}
	for {
		p.skipSpace(true)
		for !p.eof() && p.src[p.pos] == ',' {
			p.pos++
			p.skipSpace(true)
		}
		if p.eof() {
			return obj, nil
		}
		var key string
		if p.src[p.pos] == '\'' {
			end := skipString(p.src, p.pos)
			key = p.src[p.pos:end] // quoted keys stay quoted ('${id}' keys are expressions)
			if s, ok := unquote(key); ok && !strings.Contains(key, "${") {
				key = s
			}
			p.pos = end
		} else {
			key = p.ident()
			if key == "" {
				return nil, p.errorf("expected a property name in object, found %q", firstLine(p.src[p.pos:]))
			}
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			return nil, p.errorf("duplicate property %s", key)
		}
		obj[key] = v
	}
}

func parseArray(inner string) ([]any, error) {
	p := &bicepParser{src: inner}
	arr := []any{}
	for {
		p.skipSpace(true)
		for !p.eof() && p.src[p.pos] == ',' {
			p.pos++
			p.skipSpace(true)
		}
		if p.eof() {
			return arr, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// parseBicep reads a .bicep or .bicepparam file.
func parseBicep(src string) (*bicepFile, error) {
	f := &bicepFile{
		Params:  map[string]*bicepParam{},
		Vars:    map[string]any{},
		Modules: map[string]*bicepModule{},
		Assigns: map[string]any{},
	}
	p := &bicepParser{src: stripComments(src)}
	decorators := map[string]any{}
	for {
		p.skipSpace(true)
		if p.eof() {
			return f, nil
		}
		if p.src[p.pos] == '@' {
			p.pos++
			name := p.ident()
			if p.eof() || p.src[p.pos] != '(' {
				return nil, p.errorf("decorator @%s without arguments", name)
			}
			end := skipBalanced(p.src, p.pos)
			args := strings.TrimSpace(p.src[p.pos+1 : end-1])
			p.pos = end
			var arg any
			if args != "" {
				ap := &bicepParser{src: args}
				v, err := ap.value()
				if err != nil {
					return nil, fmt.Errorf("decorator @%s: %w", name, err)
				}
				arg = v
			}
			decorators[name] = arg
			continue
		}
		keyword := p.ident()
		p.skipSpace(false)
		var err error
		switch keyword {
		case "targetScope":
			p.rawValue() // "= 'subscription'"
		case "using":
			f.Using, err = p.stringLit()
		case "param":
			err = p.param(f, decorators)
		case "var":
			name := p.ident()
			if err = p.expect("="); err == nil {
				f.Vars[name], err = p.value()
			}
		case "resource":
			err = p.resource(f)
		case "module":
			err = p.module(f)
		case "output":
			o := &bicepOutput{Name: p.ident(), Decorators: decorators}
			p.skipSpace(false)
			o.Type = p.ident()
			if err = p.expect("="); err == nil {
				o.Raw = p.rawValue()
				o.Value, err = convert(o.Raw)
				f.Outputs = append(f.Outputs, o)
			}
		case "":
			return nil, p.errorf("unexpected %q", firstLine(p.src[p.pos:]))
		default:
			return nil, p.errorf("unsupported declaration %q", keyword)
		}
		if err != nil {
			return nil, err
		}
		decorators = map[string]any{}
	}
}

func (p *bicepParser) param(f *bicepFile, decorators map[string]any) error {
	name := p.ident()
	if name == "" {
		return p.errorf("param without a name")
	}
	p.skipSpace(false)
	if !p.eof() && p.src[p.pos] == '=' { // .bicepparam: param name = value
		p.pos++
		v, err := p.value()
		f.Assigns[name] = v
		return err
	}
	prm := &bicepParam{Name: name, Type: p.ident(), Decorators: decorators}
	if prm.Type == "" {
		return p.errorf("param %s: unsupported type", name)
	}
	f.Params[name] = prm
	p.skipSpace(false)
	if !p.eof() && p.src[p.pos] == '=' {
		p.pos++
		v, err := p.value()
		if err != nil {
			return fmt.Errorf("param %s: %w", name, err)
		}
		prm.Default, prm.HasDefault = v, true
	}
	return nil
}

// body reads "= [if (cond)] {...}" or "= [for ...]".
func (p *bicepParser) body() (cond string, body map[string]any, raw string, err error) {
	if err = p.expect("="); err != nil {
		return
	}
	p.skipSpace(false)
	if strings.HasPrefix(p.src[p.pos:], "if") {
		p.pos += 2
		p.skipSpace(false)
		if p.eof() || p.src[p.pos] != '(' {
			err = p.errorf("expected ( after if")
			return
		}
		end := skipBalanced(p.src, p.pos)
		cond = strings.TrimSpace(p.src[p.pos+1 : end-1])
		p.pos = end
	}
	raw = p.rawValue()
	v, err := convert(raw)
	if err != nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		body = v
	case expr:
		if !strings.HasPrefix(string(v), "[") {
			err = p.errorf("unsupported declaration body %q", firstLine(raw))
		}
	default:
		err = p.errorf("unsupported declaration body %q", firstLine(raw))
	}
	return
}

func (p *bicepParser) resource(f *bicepFile) error {
	r := &bicepResource{Name: p.ident()}
	typ, err := p.stringLit()
	if err != nil {
		return err
	}
	t, ver, ok := strings.Cut(typ, "@")
	if !ok {
		return p.errorf("resource %s: type %q has no API version", r.Name, typ)
	}
	r.Type, r.APIVersion = t, ver
	p.skipSpace(false)
	if strings.HasPrefix(p.src[p.pos:], "existing") {
		r.Existing = true
		p.pos += len("existing")
	}
	r.Condition, r.Body, r.Raw, err = p.body()
	if err != nil {
		return fmt.Errorf("resource %s: %w", r.Name, err)
	}
	f.Resources = append(f.Resources, r)
	return nil
}

func (p *bicepParser) module(f *bicepFile) error {
	m := &bicepModule{Name: p.ident()}
	path, err := p.stringLit()
	if err != nil {
		return err
	}
	m.Path = path
	if _, m.Body, _, err = p.body(); err != nil {
		return fmt.Errorf("module %s: %w", m.Name, err)
	}
	f.Modules[m.Name] = m
	return nil
}

// get walks nested objects: get(obj, "properties", "siteConfig").
func get(v any, path ...string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
