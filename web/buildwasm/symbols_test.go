package main

import (
	"encoding/json"
	"go/token"
	"strings"
	"testing"
)

// The symbol table holds what the browser kernel's completion and hover
// answer with: lcg's exported names with their signatures and docs, a
// method under its type, the standard library's fmt, and no internal or
// unexported names.
func TestSymbols(t *testing.T) {
	repo, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := symbols(repo, "go1.26", []string{"github.com/backofflab/backofflab/lab/lcg"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s Symbols
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	lcg := s.Packages["github.com/backofflab/backofflab/lab/lcg"]
	if lcg == nil || lcg.Name != "lcg" {
		t.Fatalf("no lcg in the table (%d packages)", len(s.Packages))
	}
	byName := map[string]Symbol{}
	for _, sym := range lcg.Symbols {
		byName[sym.Name] = sym
		if !isExported(sym.Name) {
			t.Errorf("lcg: unexported %s in the table", sym.Name)
		}
	}
	if m := byName["MustNew"]; m.Kind != "func" || !strings.HasPrefix(m.Sig, "func MustNew(seed int64)") || m.Doc == "" {
		t.Errorf("lcg.MustNew: %+v, want a func with its signature and doc", m)
	}
	if m := byName["LCG.Float64"]; m.Kind != "method" || !strings.Contains(m.Sig, "Float64() float64") {
		t.Errorf("lcg's LCG.Float64: %+v, want the method", m)
	}
	if fmt := s.Packages["fmt"]; fmt == nil || fmt.Name != "fmt" {
		t.Error("fmt is not in the table")
	}
	for path := range s.Packages {
		if strings.Contains(path, "/internal/") || strings.HasPrefix(path, "internal/") {
			t.Errorf("internal package %s in the table", path)
		}
	}
	t.Logf("%d packages, %d bytes", len(s.Packages), len(raw))
}

// isExported reports whether name, or each part of Type.Method, is exported.
func isExported(name string) bool {
	for _, part := range strings.Split(name, ".") {
		if !token.IsExported(part) {
			return false
		}
	}
	return true
}
