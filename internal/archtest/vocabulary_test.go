package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The models' shared vocabulary (ARCHITECTURE.md, "One vocabulary for
// every model"), checked in their source: Validate is a method, a seed is
// an int64, a Lineup takes nothing and returns []schedule.Named, a RunEach
// takes a slice of configs, and a lookup by name goes through lab.Of.
func TestModelVocabulary(t *testing.T) {
	root := repoRoot(t)
	var models []string
	for path, layer := range layers {
		if layer == model {
			models = append(models, path)
		}
	}
	sort.Strings(models)
	for _, path := range models {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, path), func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for name, f := range p.Files {
				checkVocabulary(t, fset, filepath.Join(path, filepath.Base(name)), f)
			}
		}
	}
}

func checkVocabulary(t *testing.T, fset *token.FileSet, file string, f *ast.File) {
	t.Helper()
	at := func(n ast.Node) string { return file + ":" + strconv.Itoa(fset.Position(n.Pos()).Line) }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			method := d.Recv != nil
			switch name := d.Name.Name; {
			case name == "Validate" && !method:
				t.Errorf("%s: func Validate: Validate is a method of the config it checks", at(d))
			case name == "Lineup" && !method:
				if d.Type.Params.NumFields() != 0 || d.Type.Results.NumFields() != 1 || exprString(d.Type.Results.List[0].Type) != "[]schedule.Named" {
					t.Errorf("%s: Lineup is func Lineup() []schedule.Named (NewLineup takes parameters, Policies returns names)", at(d))
				}
			case name == "RunEach" && !method:
				params := d.Type.Params.List
				last := params[len(params)-1]
				if _, ok := last.Type.(*ast.ArrayType); !ok {
					t.Errorf("%s: RunEach takes the configs to run, a []Config built by an Each… method", at(d))
				}
			case name == "Of" && method && !callsLabOf(d.Body):
				t.Errorf("%s: an Of method is one call of lab.Of", at(d))
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						if n.Name == "Seed" && exprString(fld.Type) != "int64" {
							t.Errorf("%s: %s.Seed is %s: a seed is an int64 in [0, 2³¹)", at(fld), ts.Name.Name, exprString(fld.Type))
						}
					}
				}
			}
		}
	}
}

// callsLabOf reports whether body is one return statement that calls lab.Of.
func callsLabOf(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	if !ok {
		return false
	}
	found := false
	ast.Inspect(ret, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && exprString(c.Fun) == "lab.Of" {
			found = true
		}
		return !found
	})
	return found
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.ArrayType:
		return "[]" + exprString(e.Elt)
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	}
	return "?"
}
