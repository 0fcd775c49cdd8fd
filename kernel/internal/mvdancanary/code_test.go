package mvdancanary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every canary names shelter code that exists: when the code moves or is
// renamed, the table must follow it.
func TestCanaryCodeExists(t *testing.T) {
	root := moduleRoot(t)
	parsed := map[string]*ast.File{}
	for _, c := range canaries() {
		path, name, ok := strings.Cut(c.Code, ": ")
		if !ok {
			t.Errorf("%s: code %q is not 'path/to/file.go: identifier'", c.Name, c.Code)
			continue
		}
		f, ok := parsed[path]
		if !ok {
			var err error
			f, err = parser.ParseFile(token.NewFileSet(), filepath.Join(root, path), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			parsed[path] = f
		}
		if !declares(f, name) {
			t.Errorf("%s: %s declares no %s", c.Name, path, name)
		}
	}
}

// declares reports whether f declares name at its top level: a func,
// type, var or const, or a method written Type.method.
func declares(f *ast.File, name string) bool {
	recv, method, isMethod := strings.Cut(name, ".")
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if isMethod && d.Recv != nil && d.Name.Name == method && receiverName(d.Recv.List[0].Type) == recv {
				return true
			}
			if !isMethod && d.Recv == nil && d.Name.Name == name {
				return true
			}
		case *ast.GenDecl:
			if isMethod {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == name {
						return true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// receiverName is the type of a method's receiver, without its pointer
// or type parameters.
func receiverName(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// Each canary's gap is a section of docs/mvdan.md, which names the
// canary and the code it justifies.
func TestCanaryDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "mvdan.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	var current string
	fenced := false // in a code block, where # starts no heading
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if h, ok := strings.CutPrefix(line, "### "); ok && !fenced {
			current = anchor(h)
			if _, dup := sections[current]; dup {
				t.Errorf("docs/mvdan.md has two sections #%s", current)
			}
			sections[current] = ""
			continue
		}
		if strings.HasPrefix(line, "#") && !fenced {
			current = ""
		}
		if current != "" {
			sections[current] += line
		}
	}
	used := map[string]bool{}
	for _, c := range canaries() {
		used[c.Gap] = true
		text, ok := sections[c.Gap]
		if !ok {
			t.Errorf("%s: docs/mvdan.md has no section #%s", c.Name, c.Gap)
			continue
		}
		if !strings.Contains(text, "TestCanaries/"+c.Name) {
			t.Errorf("%s: docs/mvdan.md#%s does not name TestCanaries/%s", c.Name, c.Gap, c.Name)
		}
		path, name, _ := strings.Cut(c.Code, ": ")
		if !strings.Contains(text, path) || !strings.Contains(text, name) {
			t.Errorf("%s: docs/mvdan.md#%s does not name %s", c.Name, c.Gap, c.Code)
		}
	}
	for a := range sections {
		if !used[a] {
			t.Errorf("docs/mvdan.md#%s is no canary's gap", a)
		}
	}
}

// anchor is the anchor GitHub gives a heading: lower case, spaces as
// dashes, other punctuation dropped.
func anchor(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
