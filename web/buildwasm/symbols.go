package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Symbols is the symbol table of the packages a learner's cells use: what
// the browser kernel's completion (lcg. and Tab) and hover help (Shift-Tab)
// answer from, since the browser has no gopls. golab.js exports its URL as
// symbolsURL.
type Symbols struct {
	Go       string                  `json:"go"`
	Packages map[string]*PackageDocs `json:"packages"` // by import path
}

// PackageDocs is one package's exported names.
type PackageDocs struct {
	Name     string   `json:"name"`
	Synopsis string   `json:"synopsis"`
	Symbols  []Symbol `json:"symbols"`
}

// Symbol is an exported name: a method is named Type.Method.
type Symbol struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // func, method, type, const, var
	Sig  string `json:"sig"`  // its declaration, without the body
	Doc  string `json:"doc"`  // its doc comment as text
}

// symbolStd are standard-library packages a learner may reach for beyond
// what the lessons import; their names are in the table too.
var symbolStd = []string{
	"bytes", "context", "errors", "fmt", "io", "maps", "math", "math/rand/v2", "net/http",
	"os", "slices", "sort", "strconv", "strings", "sync", "time",
}

// Limits that keep the table small: a doc comment past docMax bytes is cut
// at a paragraph, a declaration past sigLines lines is cut.
const (
	docMax   = 1500
	sigLines = 24
)

// symbolTable documents, in the module at dir (with env), the packages
// patterns match: their exported names, signatures and doc comments,
// read with go/doc from the files a js/wasm build compiles.
func symbolTable(dir string, env, patterns []string, into map[string]*PackageDocs) error {
	args := append([]string{"list", "-e", "-json=ImportPath,Name,Dir,GoFiles,Error"}, patterns...)
	out, err := output(dir, append([]string{"GOOS=js", "GOARCH=wasm"}, env...), "go", args...)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Name, Dir string
			GoFiles               []string
			Error                 *struct{ Err string }
		}
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("go list: %w", err)
		}
		if p.Error != nil {
			return fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		if p.Name == "main" || slices.Contains(strings.Split(p.ImportPath, "/"), "internal") || into[p.ImportPath] != nil {
			continue
		}
		docs, err := packageDocs(p.ImportPath, p.Dir, p.GoFiles)
		if err != nil {
			return err
		}
		into[p.ImportPath] = docs
	}
	return nil
}

func packageDocs(path, dir string, files []string) (*PackageDocs, error) {
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, af)
	}
	p, err := doc.NewFromFiles(fset, parsed, path)
	if err != nil {
		return nil, fmt.Errorf("documenting %s: %w", path, err)
	}
	d := &PackageDocs{Name: p.Name, Synopsis: p.Synopsis(p.Doc), Symbols: []Symbol{}}
	text := func(comment string) string {
		s := strings.TrimSpace(string(p.Text(comment)))
		if len(s) > docMax {
			cut := strings.LastIndex(s[:docMax], "\n\n")
			if cut < 0 {
				cut = docMax
			}
			s = strings.TrimSpace(s[:cut]) + "\n\n…"
		}
		return s
	}
	sig := func(node any) string {
		var b bytes.Buffer
		if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 4}).Fprint(&b, fset, node); err != nil {
			return ""
		}
		lines := strings.Split(b.String(), "\n")
		if len(lines) > sigLines {
			lines = append(lines[:sigLines], "\t…")
		}
		return strings.Join(lines, "\n")
	}
	fn := func(kind, name string, f *doc.Func) {
		decl := *f.Decl
		decl.Doc, decl.Body = nil, nil
		d.Symbols = append(d.Symbols, Symbol{Name: name, Kind: kind, Sig: sig(&decl), Doc: text(f.Doc)})
	}
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			decl := *v.Decl
			decl.Doc = nil
			s := sig(&decl)
			for _, n := range v.Names {
				if token.IsExported(n) {
					d.Symbols = append(d.Symbols, Symbol{Name: n, Kind: kind, Sig: s, Doc: text(v.Doc)})
				}
			}
		}
	}
	values("const", p.Consts)
	values("var", p.Vars)
	for _, f := range p.Funcs {
		fn("func", f.Name, f)
	}
	for _, t := range p.Types {
		decl := *t.Decl
		decl.Doc = nil
		d.Symbols = append(d.Symbols, Symbol{Name: t.Name, Kind: "type", Sig: sig(&decl), Doc: text(t.Doc)})
		values("const", t.Consts)
		values("var", t.Vars)
		for _, f := range t.Funcs {
			fn("func", f.Name, f)
		}
		for _, m := range t.Methods {
			fn("method", t.Name+"."+m.Name, m)
		}
	}
	slices.SortStableFunc(d.Symbols, func(a, b Symbol) int { return strings.Compare(a.Name, b.Name) })
	return d, nil
}

// symbols writes the symbol table of the lessons' imports (imports, and
// zooImports in zoo/'s module), the lab's and the exercises' packages and
// symbolStd, as JSON.
func symbols(repo, goVersion string, imports, zooImports []string, zooEnv []string) ([]byte, error) {
	s := Symbols{Go: goVersion, Packages: map[string]*PackageDocs{}}
	patterns := append([]string{"github.com/backofflab/backofflab/lab/...", "github.com/backofflab/backofflab/retry/...", "github.com/backofflab/backofflab/exercises/..."}, imports...)
	patterns = append(patterns, symbolStd...)
	if err := symbolTable(repo, nil, patterns, s.Packages); err != nil {
		return nil, err
	}
	if len(zooImports) > 0 {
		if err := symbolTable(repo, zooEnv, zooImports, s.Packages); err != nil {
			return nil, err
		}
	}
	if len(s.Packages) == 0 {
		return nil, fmt.Errorf("the symbol table is empty (patterns %v)", patterns)
	}
	return json.Marshal(s)
}
