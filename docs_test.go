package todo_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every relative link of the README and docs/ reaches a file of the
// repository and, when it names an anchor, a heading of that file: a
// section that moved leaves no link behind pointing where it was.
func TestMarkdownLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.Join(filepath.Dir(file), path)
			}
			checked++
			if _, err := os.Stat(resolved); err != nil {
				t.Errorf("%s: link %s: no file %s", file, target, resolved)
				continue
			}
			if anchor == "" || !strings.HasSuffix(resolved, ".md") {
				continue
			}
			if !anchors(t, resolved)[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", file, target, resolved, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the scan reads nothing")
	}
}

// withoutCode is markdown without its fenced code blocks, whose brackets
// are not links.
func withoutCode(md string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line)
		}
	}
	return b.String()
}

// anchors are the ids GitHub gives the headings of a markdown file: lower
// case, punctuation dropped, spaces as hyphens, a repeat numbered.
func anchors(t *testing.T, file string) map[string]bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for line := range strings.Lines(withoutCode(string(b))) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var id strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				id.WriteRune(r)
			case r == ' ':
				id.WriteByte('-')
			}
		}
		a := id.String()
		for n := 1; out[a]; n++ {
			a = id.String() + "-" + strconv.Itoa(n)
		}
		out[a] = true
	}
	return out
}
