// Package cells merges notebook cells into Go programs the way the GoNB
// kernel does, so that a cell built outside GoNB (by the browser's
// WebAssembly toolchain, see web/README.md) gets the program GoNB would
// have built.
//
// GoNB keeps the declarations of the cells a kernel has run: functions
// (methods keyed by receiver type), types, variables, constants and
// imports. A cell's declarations replace those of the same name; its
// `%%` line starts the body of func main, which is never kept. The program
// is every kept declaration, rendered in a fixed order (imports, types,
// constants, variables, functions, sorted by name within each), and main;
// goimports then adds the standard-library imports the code uses without
// declaring and drops the declared ones it no longer uses. The
// declarations are kept only if the program compiles.
//
// Use: s := new(State); p, err := s.Merge(id, source); build p.Source; if
// it compiled, s.Commit(p). Lines maps the program back to cells, so that
// an error names the learner's cell and line.
//
// What GoNB does that this does not: run `!` shell lines (Program.Shell
// lists them), `%` commands other than `%%`/`%main` (`%goflags`, `%env`,
// `%reset`, `%test`, `%wasm`, ...), `%exec`, and look up imports outside
// the standard library (a cell must import those, as every lesson does).
package cells

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Origin is where a line of a merged program came from: line Line (from 1)
// of the cell run with id Cell. Cell is 0 for a line GoNB generates
// (package, import and var blocks, the braces of main).
type Origin struct {
	Cell int `json:"cell"`
	Line int `json:"line"`
}

// Program is a cell merged with the declarations kept so far.
type Program struct {
	// Source is the program's main.go.
	Source string `json:"source"`
	// Lines[i] is the origin of line i+1 of Source.
	Lines []Origin `json:"lines"`
	// Imports lists the import paths of Source, sorted.
	Imports []string `json:"imports"`
	// Shell lists the cell's `!` lines, which are not run.
	Shell []string `json:"shell,omitempty"`
	// Commands lists the cell's `%` lines other than `%%` and `%main`,
	// which are not run.
	Commands []string `json:"commands,omitempty"`
	// Empty reports a cell with no Go code (only special lines and blank
	// lines): GoNB builds nothing for it.
	Empty bool `json:"empty,omitempty"`

	next Decls
}

// Decls are the declarations a kernel keeps, by key: a function's name, a
// method's "Type~name", a variable's, constant's or type's name, an
// import's name (its alias, or the last word of its path).
type Decls struct {
	Functions map[string]*Decl `json:"functions,omitempty"`
	Types     map[string]*Decl `json:"types,omitempty"`
	Variables map[string]*Decl `json:"variables,omitempty"`
	Constants map[string]*Decl `json:"constants,omitempty"`
	Imports   map[string]*Decl `json:"imports,omitempty"`
}

// Decl is one kept declaration: its source text and the cell lines of
// each of its text's lines.
type Decl struct {
	// Text is the declaration as rendered: a whole function; a type spec
	// without the `type` keyword; `name type = value` for a variable or
	// constant (any part may be missing); an import's `alias "path"`.
	Text string `json:"text"`
	// Doc is a function's doc comment.
	Doc string `json:"doc,omitempty"`
	// Cell is the id of the cell it came from; Lines the cell line of
	// each line of Doc and Text.
	Cell  int   `json:"cell"`
	Lines []int `json:"lines"`
	// Path is an import's path.
	Path string `json:"path,omitempty"`
	// Group ties variables declared by one tuple assignment
	// (`var a, b = f()`) and constants of one block: the key of its
	// first member. Order is a constant's place in its block.
	Group string `json:"group,omitempty"`
	Order int    `json:"order,omitempty"`
}

// State is what a kernel keeps between cells. The zero value is a fresh
// kernel. A State is plain data (JSON), so the browser keeps it outside
// the worker that merges.
type State struct {
	Decls Decls `json:"decls"`
}

// Error is a cell that does not parse: Line is the cell line.
type Error struct {
	Cell, Line, Column int
	Msg                string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cell [%d] line %d:%d: %s", e.Cell, e.Line, e.Column, e.Msg)
}

// Merge merges the cell run with id (the execution count, from 1) and
// source into the kept declarations, and returns the program to build.
// The state is unchanged until Commit. An error is an *Error for a cell
// that does not parse.
func (s *State) Merge(id int, source string) (*Program, error) {
	if id < 1 {
		return nil, fmt.Errorf("cells: cell id must be 1 or more, got %d", id)
	}
	lines := strings.Split(source, "\n")
	p := &Program{}
	special := specialLines(lines, p)
	if isEmpty(lines, special) {
		p.Empty = true
		p.next = s.Decls.clone()
		return p, nil
	}
	file, fileLines := cellFile(lines, special)
	cell, mainDecl, err := parseDecls(id, file, fileLines)
	if err != nil {
		return nil, err
	}
	next := s.Decls.clone()
	next.merge(cell)
	p.next = next
	if err := p.render(next, mainDecl); err != nil {
		return nil, err
	}
	return p, nil
}

// Commit keeps the declarations of p, a program of this state that
// compiled.
func (s *State) Commit(p *Program) {
	s.Decls = p.next.clone()
}

// specialLines returns the indices of the cell's special lines (GoNB's: a
// line starting with % or ! and longer than one character, after an
// optional "//gonb:" prefix, continued by a trailing backslash), and
// records the ones this package does not run in p.
func specialLines(lines []string, p *Program) map[int]bool {
	special := map[int]bool{}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimPrefix(lines[i], "//gonb:")
		if len(line) <= 1 || (line[0] != '%' && line[0] != '!') {
			continue
		}
		cmd := line
		special[i] = true
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			special[i] = true
			cmd = cmd[:len(cmd)-1] + " " + strings.TrimPrefix(lines[i], "//gonb:")
		}
		if isMainLine(line) {
			continue
		}
		if cmd[0] == '!' {
			p.Shell = append(p.Shell, cmd)
		} else {
			p.Commands = append(p.Commands, cmd)
		}
	}
	return special
}

// isMainLine reports a `%%` or `%main` line, which starts func main.
func isMainLine(line string) bool {
	return strings.HasPrefix(line, "%main") ||
		(strings.HasPrefix(line, "%%") && (len(line) == 2 || line[2] == ' ' || line[2] == '\t'))
}

var blank = regexp.MustCompile(`^\s*$`)

func isEmpty(lines []string, special map[int]bool) bool {
	if len(special) >= len(lines) {
		return true
	}
	for i, l := range lines {
		if !special[i] && !blank.MatchString(l) {
			return false
		}
	}
	return true
}

// cellFile writes the cell as a Go file, as GoNB's createGoFileFromLines
// does: a package clause, `%%` turned into the head of func main (closed
// at the end), special and package lines left out. fileLines[i] is the
// cell line (from 1) of file line i+1, 0 for a generated one.
func cellFile(lines []string, special map[int]bool) (string, []int) {
	var b strings.Builder
	var fileLines []int
	emit := func(text string, cellLine int) {
		b.WriteString(text)
		b.WriteString("\n")
		fileLines = append(fileLines, cellLine)
	}
	emit("package main", 0)
	emit("", 0)
	inMain := false
	for i, line := range lines {
		trimmed := strings.TrimPrefix(line, "//gonb:")
		if isMainLine(trimmed) {
			emit("func main() {", i+1)
			emit("\tflag.Parse()", i+1)
			inMain = true
			continue
		}
		if special[i] || strings.HasPrefix(line, "package") {
			continue
		}
		emit(line, i+1)
	}
	if inMain {
		emit("", 0)
		emit("}", 0)
	}
	return b.String(), fileLines
}

var importKeyWord = regexp.MustCompile(`^.*?(\w[\w0-9_]*)\s*$`)

// importKey is GoNB's key of an import: its alias, or the last word of its
// path; dot imports are keyed by path.
func importKey(path, alias string) string {
	switch alias {
	case "":
		if m := importKeyWord.FindStringSubmatch(path); len(m) == 2 {
			return m[1]
		}
		return path
	case ".":
		return ".~" + path
	}
	return alias
}

// parseDecls parses the cell file and returns its declarations, and func
// main (nil if the cell has none).
func parseDecls(id int, file string, fileLines []int) (Decls, *Decl, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", file, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return Decls{}, nil, cellError(id, err, fileLines)
	}
	d := newDecls()
	text := func(n ast.Node) string {
		return file[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
	}
	lineSpan := func(from, to token.Pos) []int {
		a, b := fset.Position(from).Line, fset.Position(to).Line
		out := make([]int, 0, b-a+1)
		for l := a; l <= b; l++ {
			out = append(out, fileLines[l-1])
		}
		return out
	}
	for _, imp := range f.Imports {
		alias := ""
		if imp.Name != nil {
			alias = imp.Name.Name
		}
		path := strings.Trim(imp.Path.Value, "`\"")
		t := fmt.Sprintf("%q", path)
		if alias != "" {
			t = alias + " " + t
		}
		d.Imports[importKey(path, alias)] = &Decl{Text: t, Path: path, Cell: id, Lines: lineSpan(imp.Path.Pos(), imp.Path.End())}
	}
	var mainDecl *Decl
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			key := decl.Name.Name
			if decl.Recv != nil && len(decl.Recv.List) > 0 {
				typ := "unknown"
				switch t := decl.Recv.List[0].Type.(type) {
				case *ast.Ident:
					typ = t.Name
				case *ast.StarExpr:
					typ = text(t.X)
				}
				key = typ + "~" + key
			}
			fd := &Decl{Text: text(decl), Cell: id, Lines: lineSpan(decl.Pos(), decl.End())}
			if decl.Doc != nil {
				var doc []string
				for _, c := range decl.Doc.List {
					doc = append(doc, c.Text)
				}
				fd.Doc = strings.Join(doc, "\n")
				fd.Lines = append(lineSpan(decl.Doc.Pos(), decl.Doc.End())[:len(decl.Doc.List)], fd.Lines...)
			}
			if key == "main" {
				mainDecl = fd
				continue
			}
			d.Functions[key] = fd
		case *ast.GenDecl:
			switch decl.Tok {
			case token.TYPE:
				for _, spec := range decl.Specs {
					ts := spec.(*ast.TypeSpec)
					d.Types[ts.Name.Name] = &Decl{Text: text(ts), Cell: id, Lines: lineSpan(ts.Pos(), ts.End())}
				}
			case token.VAR:
				for _, spec := range decl.Specs {
					vs := spec.(*ast.ValueSpec)
					typ := ""
					if vs.Type != nil {
						typ = text(vs.Type)
					}
					tuple := len(vs.Names) > 1 && len(vs.Values) == 1
					var names []string
					for _, n := range vs.Names {
						names = append(names, n.Name)
					}
					for i, name := range vs.Names {
						v := &Decl{Cell: id, Lines: lineSpan(vs.Pos(), vs.End())}
						value := ""
						if i < len(vs.Values) {
							value = text(vs.Values[i])
						}
						v.Text = valueText(name.Name, typ, value)
						if tuple {
							// Rendered once, with its first name's key.
							v.Group = vs.Names[0].Name
							v.Text = valueText(strings.Join(names, ", "), typ, text(vs.Values[0]))
						}
						key := name.Name
						if key == "_" {
							key = fmt.Sprintf("_~%d~%d", id, fset.Position(name.Pos()).Offset)
						}
						d.Variables[key] = v
					}
				}
			case token.CONST:
				group := ""
				order := 0
				for _, spec := range decl.Specs {
					vs := spec.(*ast.ValueSpec)
					typ := ""
					if vs.Type != nil {
						typ = text(vs.Type)
					}
					for i, name := range vs.Names {
						if group == "" {
							group = name.Name
						}
						value := ""
						if i < len(vs.Values) {
							value = text(vs.Values[i])
						}
						d.Constants[name.Name] = &Decl{Text: valueText(name.Name, typ, value), Cell: id, Lines: lineSpan(vs.Pos(), vs.End()), Group: group, Order: order}
						order++
					}
				}
			}
		}
	}
	return d, mainDecl, nil
}

func valueText(name, typ, value string) string {
	t := name
	if typ != "" {
		t += " " + typ
	}
	if value != "" {
		t += " = " + value
	}
	return t
}

// cellError turns a parse error of the cell file into an *Error at the
// cell's line.
func cellError(id int, err error, fileLines []int) error {
	e := &Error{Cell: id, Msg: err.Error()}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e.Column, e.Msg = list[0].Pos.Column, list[0].Msg
		if l := list[0].Pos.Line; l >= 1 && l <= len(fileLines) {
			e.Line = fileLines[l-1]
		}
	}
	return e
}

func newDecls() Decls {
	return Decls{
		Functions: map[string]*Decl{}, Types: map[string]*Decl{}, Variables: map[string]*Decl{},
		Constants: map[string]*Decl{}, Imports: map[string]*Decl{},
	}
}

func (d Decls) clone() Decls {
	c := newDecls()
	for _, m := range [][2]map[string]*Decl{{c.Functions, d.Functions}, {c.Types, d.Types}, {c.Variables, d.Variables}, {c.Constants, d.Constants}, {c.Imports, d.Imports}} {
		for k, v := range m[1] {
			cp := *v
			cp.Lines = slices.Clone(v.Lines)
			m[0][k] = &cp
		}
	}
	return c
}

// merge puts the declarations of cell into d, replacing those of the same
// key. A variable that replaces a member of a tuple assignment removes the
// whole tuple (GoNB does the same); a constant that replaces a member of a
// block leaves the rest of that block in place.
func (d Decls) merge(cell Decls) {
	maps.Copy(d.Imports, cell.Imports)
	maps.Copy(d.Functions, cell.Functions)
	maps.Copy(d.Types, cell.Types)
	for k, v := range cell.Variables {
		if old, ok := d.Variables[k]; ok && old.Group != "" && (old.Group != v.Group || old.Cell != v.Cell) {
			for k2, v2 := range d.Variables {
				if v2.Group == old.Group && v2.Cell == old.Cell {
					delete(d.Variables, k2)
				}
			}
		}
		d.Variables[k] = v
	}
	maps.Copy(d.Constants, cell.Constants)
}

// lineWriter writes a program and records the origin of each line.
type lineWriter struct {
	b     strings.Builder
	lines []Origin
}

// write writes text whose lines come from origins (one per line; missing
// ones are generated lines).
func (w *lineWriter) write(text string, cell int, lines []int) {
	for i, l := range strings.Split(text, "\n") {
		w.b.WriteString(l)
		w.b.WriteString("\n")
		o := Origin{}
		if i < len(lines) && lines[i] > 0 {
			o = Origin{Cell: cell, Line: lines[i]}
		}
		w.lines = append(w.lines, o)
	}
}

func (w *lineWriter) gen(text string) { w.write(text, 0, nil) }

// render writes the program from d and main, with its imports fixed as
// goimports would.
func (p *Program) render(d Decls, mainDecl *Decl) error {
	fixed := d
	fixed.Imports = fixImports(d, mainDecl)
	p.renderBody(fixed, mainDecl)
	return nil
}

// renderBody writes the program from d and main, as GoNB's
// createCodeFromDecls does.
func (p *Program) renderBody(d Decls, mainDecl *Decl) {
	imports := d.Imports
	w := &lineWriter{}
	w.gen("package main\n")
	if len(imports) > 0 {
		w.gen("import (")
		for _, k := range slices.Sorted(maps.Keys(imports)) {
			imp := imports[k]
			w.write("\t"+imp.Text, imp.Cell, imp.Lines)
			p.Imports = append(p.Imports, imp.Path)
		}
		w.gen(")\n")
	}
	slices.Sort(p.Imports)
	if len(d.Types) > 0 {
		for _, k := range slices.Sorted(maps.Keys(d.Types)) {
			t := d.Types[k]
			w.write("type "+t.Text, t.Cell, t.Lines)
		}
		w.gen("")
	}
	renderConstants(w, d.Constants)
	if len(d.Variables) > 0 {
		w.gen("var (")
		for _, k := range slices.Sorted(maps.Keys(d.Variables)) {
			v := d.Variables[k]
			if v.Group != "" {
				if v.Group != k {
					continue // rendered with the tuple's first variable
				}
			}
			w.write("\t"+v.Text, v.Cell, v.Lines)
		}
		w.gen(")\n")
	}
	for _, k := range slices.Sorted(maps.Keys(d.Functions)) {
		f := d.Functions[k]
		text := f.Text
		if strings.HasPrefix(k, "init_") {
			text = strings.Replace(text, k, "init", 1)
		}
		if f.Doc != "" {
			text = f.Doc + "\n" + text
		}
		w.write(text+"\n", f.Cell, f.Lines)
	}
	w.gen("")
	if mainDecl == nil {
		w.gen("func main() { flag.Parse() }")
	} else {
		w.write(mainDecl.Text, mainDecl.Cell, mainDecl.Lines)
	}
	p.Source = w.b.String()
	p.Lines = w.lines
}

// renderConstants renders constants by block, the blocks in the order of
// their first constant's name, each block's members in their order.
func renderConstants(w *lineWriter, consts map[string]*Decl) {
	blocks := map[string][]*Decl{}
	for _, c := range consts {
		blocks[c.Group] = append(blocks[c.Group], c)
	}
	for _, g := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[g]
		slices.SortFunc(b, func(x, y *Decl) int { return cmp.Compare(x.Order, y.Order) })
		if len(b) == 1 {
			w.write("const "+b[0].Text+"\n", b[0].Cell, b[0].Lines)
			continue
		}
		w.gen("const (")
		for _, c := range b {
			w.write("\t"+c.Text, c.Cell, c.Lines)
		}
		w.gen(")\n")
	}
}
