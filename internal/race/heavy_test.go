package race_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tests that call race.Heavy are exactly those the Makefile's second
// pass runs without the race detector, in the packages it names: a heavy
// test left out of it would run nowhere, and one listed that does not skip
// would run twice.
func TestHeavyTestsRunWithoutTheDetector(t *testing.T) {
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	variable := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*:=(.*)$`).FindSubmatch(makefile)
		if m == nil {
			t.Fatalf("the Makefile sets no %s", name)
		}
		return strings.FieldsFunc(string(m[1]), func(r rune) bool { return r == '|' || r == ' ' || r == '\t' })
	}
	listedTests, listedPackages := variable("HEAVY_TESTS"), variable("HEAVY_PACKAGES")
	var heavyTests, heavyPackages []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !callsHeavy(fn.Body) {
				continue
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			heavyTests = append(heavyTests, fn.Name.Name)
			heavyPackages = append(heavyPackages, "./"+filepath.ToSlash(rel)+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][]string{listedTests, listedPackages, heavyTests, heavyPackages} {
		slices.Sort(l)
	}
	heavyPackages = slices.Compact(heavyPackages)
	if !slices.Equal(listedTests, heavyTests) || !slices.Equal(listedPackages, heavyPackages) {
		t.Fatalf("the Makefile lists HEAVY_TESTS %v in HEAVY_PACKAGES %v; the tests calling race.Heavy are %v in %v",
			listedTests, listedPackages, heavyTests, heavyPackages)
	}
}

func callsHeavy(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Heavy" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "race" {
				found = true
			}
		}
		return !found
	})
	return found
}
