package cells

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

//go:generate go run stdlib_gen.go

// PackageNames, when set, gives the package name of an import path outside
// the standard library (the browser's build knows them all); where it is
// nil or returns "", the name is guessed from the path, as goimports does
// before it asks the go command.
var PackageNames func(path string) string

// fixImports returns the imports of the program made of d and main after
// goimports: the kept imports it uses, and the standard-library packages
// its code refers to without importing them. GoNB runs goimports on the
// program and keeps the imports it leaves; this does what goimports does
// for a single file whose missing imports are all in the standard library
// (golang.org/x/tools/internal/imports: collectReferences, the deletion
// of unused imports, addStdlibCandidates and findMissingImport).
func fixImports(d Decls, mainDecl *Decl) map[string]*Decl {
	refs := references(d, mainDecl)
	kept := map[string]*Decl{}
	have := map[string]bool{}
	for k, imp := range d.Imports {
		name, alias := importName(imp)
		if alias == "_" || alias == "." {
			kept[k] = imp
			continue
		}
		if _, used := refs[name]; used {
			kept[k] = imp
			have[name] = true
		}
	}
	for _, left := range slices.Sorted(maps.Keys(refs)) {
		if have[left] {
			continue
		}
		if p := stdlibCandidate(left, refs[left]); p != "" {
			key := importKey(p, "")
			if _, taken := kept[key]; taken {
				key += "~" + p
			}
			kept[key] = &Decl{Text: strconv.Quote(p), Path: p}
		}
	}
	return kept
}

// importName returns the identifier an import declares and its alias.
func importName(imp *Decl) (name, alias string) {
	if i := strings.IndexByte(imp.Text, ' '); i > 0 && !strings.HasPrefix(imp.Text, `"`) {
		alias = imp.Text[:i]
		return alias, alias
	}
	return packageName(imp.Path), ""
}

// packageName is the name of the package at path: the standard library's
// last path element (without a version suffix), PackageNames's, or the
// name goimports assumes.
func packageName(p string) string {
	if _, std := stdlib[p]; std {
		return withoutVersion(p)
	}
	if PackageNames != nil {
		if n := PackageNames(p); n != "" {
			return n
		}
	}
	return assumedName(p)
}

// withoutVersion is path's last element, or the one before a /vN suffix.
func withoutVersion(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' {
		if _, err := strconv.Atoi(base[1:]); err == nil && path.Dir(p) != "." {
			return path.Base(path.Dir(p))
		}
	}
	return base
}

// assumedName is goimports's ImportPathToAssumedName.
func assumedName(p string) string {
	base := strings.TrimPrefix(withoutVersion(p), "go-")
	if i := strings.IndexFunc(base, func(r rune) bool {
		return !(unicode.IsLetter(r) || r == '_' || unicode.IsDigit(r))
	}); i >= 0 {
		base = base[:i]
	}
	return base
}

// references returns, for each identifier X that the program uses as
// X.Sel without declaring it (so X may be a package), the exported Sels,
// as goimports's collectReferences does on a parse with object
// resolution.
func references(d Decls, mainDecl *Decl) map[string]map[string]bool {
	p := &Program{}
	// Render with no imports: the references do not depend on them.
	noImports := d.clone()
	noImports.Imports = nil
	p.renderBody(noImports, mainDecl)
	refs := map[string]map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", p.Source, parser.ParseComments)
	if err != nil && f == nil {
		return refs
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil || !ast.IsExported(sel.Sel.Name) {
			return true
		}
		if refs[x.Name] == nil {
			refs[x.Name] = map[string]bool{}
		}
		refs[x.Name][sel.Sel.Name] = true
		return true
	})
	return refs
}

// stdlibCandidate returns the standard-library package that goimports
// would import for left.syms, or "". For "rand" it tries crypto/rand, then
// math/rand/v2, then math/rand, as goimports does; otherwise the packages
// named left in path order (goimports takes them in map order, so where
// two qualify it may take either: none of the lessons' cells is such a
// case, and TestMatchesGoimports checks every one).
func stdlibCandidate(left string, syms map[string]bool) string {
	var candidates []string
	if left == "rand" {
		candidates = []string{"crypto/rand", "math/rand/v2", "math/rand"}
	} else {
		for _, p := range stdlibPaths {
			if path.Base(p) == left {
				candidates = append(candidates, p)
			}
		}
	}
	for _, p := range candidates {
		if withoutVersion(p) != left {
			continue
		}
		exports := stdlib[p]
		all := true
		for s := range syms {
			if _, ok := slices.BinarySearch(exports, s); !ok {
				all = false
				break
			}
		}
		if all {
			return p
		}
	}
	return ""
}

// stdlibPaths lists the standard library's packages in order.
var stdlibPaths = slices.Sorted(maps.Keys(stdlib))
