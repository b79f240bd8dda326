// Command buildwasm writes Go in the browser into a directory: the Go
// compiler and linker of the Go that runs it, built to WebAssembly; every
// package a lesson or exercise imports, and the rest of the standard
// library, compiled for GOOS=js GOARCH=wasm with their export data; the
// cell merger (internal/cells); and the worker's JavaScript (web/src).
// scripts/build-wasm runs it; web/README.md describes what it writes.
//
//	go run ./web/buildwasm [-v] DIR
//
// Every file except DIR/golab.js is named by a hash of its content, so a
// browser may keep it for good. The WebAssembly and the archives are
// compressed with zstd (a static host such as python3 -m http.server
// compresses nothing, and zstd at its best level with a long window packs
// Go's object files a quarter smaller than gzip -9); the worker
// decompresses them with fzstd. The archives the lessons link come in one
// bundle, the rest of the standard library one file a package, fetched
// when a cell first imports it.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/backofflab/backofflab/internal/cells"
	"github.com/backofflab/backofflab/internal/notebook"
)

// Manifest is DIR/manifest-HASH.json, what the worker reads first.
type Manifest struct {
	Go   string `json:"go"`   // go1.26.8
	Lang string `json:"lang"` // go1.26, the -lang of cell programs
	// Tools are compile (GOOS=wasip1), link and cells (GOOS=js), and
	// wasm_exec (Go's lib/wasm/wasm_exec.js, for the record).
	Tools     map[string]Asset     `json:"tools"`
	Universes map[string]*Universe `json:"universes"`
	// Bundle holds the eager packages' archives, one after another: a
	// Package's Offset and Size locate its archive in it.
	Bundle Asset `json:"bundle"`
}

// Universe is one module's build list compiled for the browser: "main"
// is the repository's module; "zoo" is zoo/'s, which lesson 13 uses.
type Universe struct {
	Module   string              `json:"module"` // the main module
	Packages map[string]*Package `json:"packages"`
	// Modules gives each module's version and sum, for the program's
	// build information (runtime/debug.ReadBuildInfo).
	Modules []Module `json:"modules"`
}

// Module is a dependency in a universe's build list.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum,omitempty"`
	Replace string `json:"replace,omitempty"`
}

// Package is one compiled package: its archive (export data and object
// code) is the Asset, or the bytes at Offset in the manifest's Bundle.
type Package struct {
	Asset
	Offset  int64    `json:"offset,omitempty"`
	Name    string   `json:"name"`
	Imports []string `json:"imports"` // after ImportMap, without unsafe
	// Eager marks the packages the lessons' programs link: the worker
	// fetches them when it starts, the others when a cell first needs one.
	Eager  bool   `json:"eager,omitempty"`
	Module string `json:"module,omitempty"`
}

// Asset is a file under DIR: File is the name the worker stores it under
// (a content hash), URL where it is served (absent for a package in the
// bundle), Size its uncompressed and Bytes its served size.
type Asset struct {
	File  string `json:"file"`
	URL   string `json:"url,omitempty"`
	Size  int64  `json:"size"`
	Bytes int64  `json:"bytes,omitempty"`
}

var verbose = flag.Bool("v", false, "print each step and its time")

func main() {
	log.SetFlags(0)
	log.SetPrefix("build-wasm: ")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: build-wasm [-v] DIR\n\nWrites Go in the browser (compiler, linker, packages, worker) into DIR.\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := build(flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

func step(format string, args ...any) func() {
	start := time.Now()
	msg := fmt.Sprintf(format, args...)
	if *verbose {
		log.Printf("%s ...", msg)
	}
	return func() {
		if *verbose {
			log.Printf("%s: %v", msg, time.Since(start).Round(100*time.Millisecond))
		}
	}
}

func build(dir string) error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	goVersion, err := goEnv(repo, "GOVERSION")
	if err != nil {
		return err
	}
	if !strings.HasPrefix(goVersion, "go1.26") {
		return fmt.Errorf("the go on PATH is %s; the lessons pin Go 1.26 (GOTOOLCHAIN=local)", goVersion)
	}
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "build-wasm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	m := &Manifest{Go: goVersion, Lang: "go1.26", Tools: map[string]Asset{}, Universes: map[string]*Universe{}}
	w := &writer{dir: dir, archives: map[string]string{}, zstd: openZstdCache()}
	defer w.zstd.trim()

	tools := []struct{ name, goos, pkg string }{
		{"compile", "wasip1", "cmd/compile"},
		{"link", "js", "cmd/link"},
		{"cells", "js", "./web/cellswasm"},
	}
	for _, t := range tools {
		done := step("building %s for %s/wasm", t.pkg, t.goos)
		out := filepath.Join(tmp, t.name+".wasm")
		if err := run(repo, []string{"GOOS=" + t.goos, "GOARCH=wasm"}, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, t.pkg); err != nil {
			return err
		}
		a, err := w.file(out, ".wasm", true)
		if err != nil {
			return err
		}
		m.Tools[t.name] = a
		done()
	}

	imports, zooImports, err := lessonImports(repo)
	if err != nil {
		return err
	}
	done := step("compiling the packages for js/wasm")
	u, err := universe(repo, nil, imports, true, w)
	if err != nil {
		return err
	}
	m.Universes["main"] = u
	done()
	var zooEnv []string
	if len(zooImports) > 0 {
		done := step("compiling zoo/'s packages for js/wasm")
		// GoNB's kernel has the repository in its workspace (scripts/kernel)
		// and lesson 13 adds zoo/ to it: the build list of both.
		work := filepath.Join(tmp, "go.work")
		text := fmt.Sprintf("go 1.26.0\n\nuse (\n\t%q\n\t%q\n)\n", repo, filepath.Join(repo, "zoo"))
		if err := os.WriteFile(work, []byte(text), 0o644); err != nil {
			return err
		}
		zooEnv = []string{"GOWORK=" + work}
		u, err := universe(repo, zooEnv, zooImports, false, w)
		if err != nil {
			return err
		}
		m.Universes["zoo"] = u
		done()
	}

	done = step("the symbol table for completion and hover")
	table, err := symbols(repo, goVersion, imports, zooImports, zooEnv)
	if err != nil {
		return err
	}
	if w.symbols, err = w.bytes(table, ".json", false); err != nil {
		return err
	}
	done()

	done = step("bundling and compressing the eager packages")
	if err := w.bundle(m); err != nil {
		return err
	}
	done()
	if err := w.scripts(repo, m); err != nil {
		return err
	}
	if err := w.testPage(repo); err != nil {
		return err
	}
	return w.report(m)
}

// lessonImports returns what the lessons' and exercises' programs import:
// every code cell merged as GoNB merges it, in order, notebook by
// notebook. A notebook that imports the zoo module (lesson 13) builds in
// zoo/'s module, with its versions: its imports are returned apart.
func lessonImports(repo string) (main, zoo []string, err error) {
	var paths []string
	for _, glob := range []string{"notebooks/*.ipynb", "exercises/notebooks/*.ipynb"} {
		m, err := filepath.Glob(filepath.Join(repo, glob))
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("no notebooks under %s/notebooks: is this the repository?", repo)
	}
	mainSet, zooSet := map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		nb, err := notebook.Read(p)
		if err != nil {
			return nil, nil, err
		}
		set := map[string]bool{}
		var s cells.State
		id := 0
		for _, c := range nb.Cells {
			if c.CellType != "code" {
				continue
			}
			id++
			prog, err := s.Merge(id, string(c.Source))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", filepath.Base(p), err)
			}
			for _, imp := range prog.Imports {
				set[imp] = true
			}
			s.Commit(prog)
		}
		into := mainSet
		for imp := range set {
			if InZoo(imp) {
				into = zooSet
			}
		}
		maps.Copy(into, set)
	}
	return slices.Sorted(maps.Keys(mainSet)), slices.Sorted(maps.Keys(zooSet)), nil
}

// InZoo reports whether path is a package of the zoo module, which only
// builds in zoo/'s build list.
func InZoo(path string) bool {
	return path == zooModule || strings.HasPrefix(path, zooModule+"/")
}

const zooModule = "github.com/backofflab/backofflab/zoo"

// listed is the part of go list -json read here.
type listed struct {
	ImportPath string
	Name       string
	Export     string
	Imports    []string
	ImportMap  map[string]string
	Standard   bool
	DepOnly    bool
	Module     *struct {
		Path, Version, Sum string
		Replace            *struct{ Path, Version string }
	}
	Error *struct{ Err string }
}

// universe compiles, in the module at dir, the standard library, every
// package of the repository's lab, retry and exercises, and imports, for
// js/wasm. With eager, what imports link is marked eager.
func universe(dir string, env, imports []string, eager bool, w *writer) (*Universe, error) {
	patterns := append([]string{"std", "github.com/backofflab/backofflab/lab/...", "github.com/backofflab/backofflab/retry/...", "github.com/backofflab/backofflab/exercises/...", "github.com/janpfeifer/gonb/gonbui"}, imports...)
	args := append([]string{"list", "-trimpath", "-deps", "-export", "-json=ImportPath,Name,Export,Imports,ImportMap,Standard,DepOnly,Module,Error"}, patterns...)
	out, err := output(dir, append([]string{"GOOS=js", "GOARCH=wasm"}, env...), "go", args...)
	if err != nil {
		return nil, err
	}
	u := &Universe{Packages: map[string]*Package{}}
	mods := map[string]Module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		if p.Export == "" || strings.HasSuffix(p.ImportPath, ".test") || p.Name == "main" && !p.DepOnly {
			continue
		}
		data, err := os.ReadFile(p.Export)
		if err != nil {
			return nil, err
		}
		pkg := &Package{Asset: Asset{File: hashName(data, ".a"), Size: int64(len(data))}, Name: p.Name, Imports: []string{}}
		w.archives[pkg.File] = p.Export
		for _, imp := range p.Imports {
			if mapped, ok := p.ImportMap[imp]; ok {
				imp = mapped
			}
			if imp != "unsafe" && imp != "C" {
				pkg.Imports = append(pkg.Imports, imp)
			}
		}
		if p.Module != nil {
			pkg.Module = p.Module.Path
			mod := Module{Path: p.Module.Path, Version: p.Module.Version, Sum: p.Module.Sum}
			if p.Module.Replace != nil {
				mod.Replace = p.Module.Replace.Path
			}
			mods[p.Module.Path] = mod
		}
		u.Packages[p.ImportPath] = pkg
	}
	for _, p := range imports {
		if u.Packages[p] == nil {
			return nil, fmt.Errorf("a lesson imports %s, which go list did not build", p)
		}
	}
	// Eager: what the lessons' programs link, and the runtime.
	var visit func(string)
	visit = func(p string) {
		pkg := u.Packages[p]
		if pkg == nil || pkg.Eager {
			return
		}
		pkg.Eager = true
		for _, d := range pkg.Imports {
			visit(d)
		}
	}
	if eager {
		for _, p := range append(imports, "runtime") {
			visit(p)
		}
	}
	for _, pkg := range u.Packages {
		if !pkg.Eager {
			a, err := w.file(w.archives[pkg.File], ".a", true)
			if err != nil {
				return nil, err
			}
			pkg.Asset = a
		}
	}
	u.Module = "github.com/backofflab/backofflab"
	for _, k := range slices.Sorted(maps.Keys(mods)) {
		u.Modules = append(u.Modules, mods[k])
	}
	return u, nil
}

// writer writes content-addressed files into dir.
type writer struct {
	dir      string
	symbols  Asset // the symbol table (symbols.go)
	written  map[string]bool
	archives map[string]string // archive name → path in the build cache
	zstd     zstdCache
}

func hashName(data []byte, ext string) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12]) + ext
}

// bundle writes the eager packages' archives as one compressed file, each
// archive once (the universes share the standard library's).
func (w *writer) bundle(m *Manifest) error {
	var blob []byte
	at := map[string]int64{}
	for _, un := range slices.Sorted(maps.Keys(m.Universes)) {
		u := m.Universes[un]
		for _, p := range slices.Sorted(maps.Keys(u.Packages)) {
			pkg := u.Packages[p]
			if !pkg.Eager {
				continue
			}
			off, ok := at[pkg.File]
			if !ok {
				data, err := os.ReadFile(w.archives[pkg.File])
				if err != nil {
					return err
				}
				off = int64(len(blob))
				at[pkg.File] = off
				blob = append(blob, data...)
			}
			pkg.Offset = off
		}
	}
	a, err := w.bytes(blob, ".bundle", true)
	if err != nil {
		return err
	}
	m.Bundle = a
	return nil
}

// file copies src into dir/assets, gzipped if zip, named by the hash of
// its content.
func (w *writer) file(src, ext string, zip bool) (Asset, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return Asset{}, err
	}
	return w.bytes(data, ext, zip)
}

func (w *writer) bytes(data []byte, ext string, zip bool) (Asset, error) {
	name := hashName(data, ext)
	a := Asset{File: name, URL: "assets/" + name, Size: int64(len(data))}
	if zip {
		a.URL += ".zst"
	}
	if w.written == nil {
		w.written = map[string]bool{}
	}
	path := filepath.Join(w.dir, filepath.FromSlash(a.URL))
	if st, err := os.Stat(path); err == nil {
		// Named by content: already written, by this run or an earlier one.
		a.Bytes = st.Size()
		return a, nil
	}
	body := data
	if zip {
		body = w.zstd.compress(data, name)
	}
	a.Bytes = int64(len(body))
	if !w.written[path] {
		w.written[path] = true
		{
			if err := writeFile(path, body); err != nil {
				return Asset{}, err
			}
		}
	}
	return a, nil
}

// scripts writes the worker's JavaScript into dir/js-HASH/ (one hash over
// all of it), the manifest, and dir/golab.js, the one file without a hash:
// the module a page imports.
func (w *writer) scripts(repo string, m *Manifest) error {
	files := map[string][]byte{}
	// web/src's own scripts, and browser_wasi_shim and fzstd from
	// node_modules (web/src/browser_wasi_shim and web/src/fzstd link there).
	dirs := map[string]string{
		"":                   filepath.Join(repo, "web", "src"),
		"browser_wasi_shim/": filepath.Join(repo, "node_modules", "@bjorn3", "browser_wasi_shim", "dist"),
		"fzstd/":             filepath.Join(repo, "node_modules", "fzstd", "esm"),
	}
	for prefix, src := range dirs {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() || !(strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".mjs")) {
				return nil
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[prefix+filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			return fmt.Errorf("reading the worker's scripts (run scripts/setup first: it installs browser_wasi_shim): %w", err)
		}
	}
	if _, ok := files["browser_wasi_shim/index.js"]; !ok {
		return errors.New("web/src/browser_wasi_shim is missing: run scripts/setup (npm ci installs @bjorn3/browser_wasi_shim)")
	}
	goroot, err := goEnv(repo, "GOROOT")
	if err != nil {
		return err
	}
	wasmExec, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	files["wasm_exec.js"] = wasmExec
	a, err := w.bytes(wasmExec, ".js", false)
	if err != nil {
		return err
	}
	m.Tools["wasm_exec"] = a

	manifest, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	ma, err := w.bytes(manifest, ".json", false)
	if err != nil {
		return err
	}
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%d\x00", k, len(files[k]))
		h.Write(files[k])
	}
	jsDir := "js-" + hex.EncodeToString(h.Sum(nil)[:8])
	for k, data := range files {
		p := filepath.Join(w.dir, jsDir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeFile(p, data); err != nil {
			return err
		}
	}
	entry := fmt.Sprintf(`// Go in the browser: see web/README.md in the Backoff Lab repository.
// Written by scripts/build-wasm; every other file here is named by its content.
export * from "./%s/golab.js";
export const manifestURL = new URL("./%s", import.meta.url).href;
export const symbolsURL = new URL("./%s", import.meta.url).href;
`, jsDir, ma.URL, w.symbols.URL)
	return writeFile(filepath.Join(w.dir, "golab.js"), []byte(entry))
}

// testPage writes DIR/test/: the plain page that runs a notebook's cells
// (web/testpage), the lessons' and exercises' notebooks it offers, and
// echarts where the charts' loader looks for it beside a page.
func (w *writer) testPage(repo string) error {
	dst := filepath.Join(w.dir, "test")
	for _, d := range []string{"notebooks", "assets"} {
		if err := os.MkdirAll(filepath.Join(dst, d), 0o755); err != nil {
			return err
		}
	}
	copyFile := func(src, to string) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return writeFile(to, data)
	}
	for _, f := range []string{"index.html", "test.js"} {
		if err := copyFile(filepath.Join(repo, "web", "testpage", f), filepath.Join(dst, f)); err != nil {
			return err
		}
	}
	if err := copyFile(filepath.Join(repo, "node_modules", "echarts", "dist", "echarts.min.js"), filepath.Join(dst, "assets", "echarts.min.js")); err != nil {
		return fmt.Errorf("echarts for the test page (run scripts/setup): %w", err)
	}
	// The lessons, the exercises as a learner gets them, and the
	// instructor's versions (with the answers) as instructor-NAME.
	var names []string
	for glob, prefix := range map[string]string{"notebooks/*.ipynb": "", "exercises/notebooks/*.ipynb": "", "exercises/solutions/notebooks/*.ipynb": "instructor-"} {
		paths, err := filepath.Glob(filepath.Join(repo, glob))
		if err != nil {
			return err
		}
		for _, p := range paths {
			name := prefix + filepath.Base(p)
			names = append(names, name)
			if err := copyFile(p, filepath.Join(dst, "notebooks", name)); err != nil {
				return err
			}
		}
	}
	slices.Sort(names)
	index, _ := json.Marshal(names)
	return writeFile(filepath.Join(dst, "notebooks", "index.json"), index)
}

// report prints what each part weighs.
func (w *writer) report(m *Manifest) error {
	var lazy, lazySize int64
	var nEager, nLazy int
	seen := map[string]bool{}
	for _, u := range m.Universes {
		for _, p := range u.Packages {
			if p.Eager {
				nEager++
			} else if !seen[p.File] {
				seen[p.File] = true
				lazy += p.Bytes
				lazySize += p.Size
				nLazy++
			}
		}
	}
	eager, eagerSize := m.Bundle.Bytes, m.Bundle.Size
	mb := func(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
	fmt.Printf("%-34s %10s %10s\n", "part", "served", "unpacked")
	for _, k := range []string{"compile", "link", "cells"} {
		fmt.Printf("%-34s %10s %10s\n", k+".wasm", mb(m.Tools[k].Bytes), mb(m.Tools[k].Size))
	}
	fmt.Printf("%-34s %10s %10s\n", fmt.Sprintf("packages the lessons link (%d)", nEager), mb(eager), mb(eagerSize))
	fmt.Printf("%-34s %10s %10s\n", fmt.Sprintf("on demand: rest of std, zoo (%d)", nLazy), mb(lazy), mb(lazySize))
	first := m.Tools["compile"].Bytes + m.Tools["link"].Bytes + m.Tools["cells"].Bytes + eager
	fmt.Printf("%-34s %10s\n", "first visit", mb(first))
	return nil
}

// encoder compresses at zstd's best level with a 64 MB window: the
// bundle's archives share much (the same runtime calls, the same type
// descriptors), often farther apart than a small window reaches.
var encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(64<<20), zstd.WithEncoderConcurrency(1))

func repoRoot() (string, error) {
	out, err := output(".", nil, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/backofflab/backofflab")
	if err != nil {
		return "", fmt.Errorf("run build-wasm inside the Backoff Lab repository: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func goEnv(dir, key string) (string, error) {
	out, err := output(dir, nil, "go", "env", key)
	return strings.TrimSpace(string(out)), err
}

func command(dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func run(dir string, env []string, name string, args ...string) error {
	cmd := command(dir, env, name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

func output(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := command(dir, env, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// writeFile gives path the content data (mode 0644) so that a reader, or
// another build of the same folder at the same time (the test suites each
// build it), sees the old file or the new one whole, never a part: a file
// that already holds data is left alone, any other is written to a temporary
// file of its own beside it and renamed into place.
func writeFile(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
