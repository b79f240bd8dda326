package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// rewriter turns what GoNB publishes on IOPub into what a learner needs to read. It changes
// three things and passes everything else through as it came:
//
//   - A cell that panics: GoNB shows the Go runtime's report on standard error (the must
//     package's log line, every goroutine's frames, library frames among them, "exit status 2"),
//     then an error that says only "exit status 2". The rewriter holds the report back and
//     makes the error say what happened and where: the panic's message, then the cell and line
//     of each frame in the learner's cells, with that line's code.
//   - A cell that fails to compile: GoNB's error (run with --raw_error) lists each compiler
//     message with the generated main.go around it. The rewriter keeps, for each message, the
//     cell and line, the line's code and a caret under the column.
//   - A program that exits with another status: GoNB prints the status on standard error and
//     again as the error; the rewriter drops the first.
//
// It also makes the kernel's state known as soon as a front end connects (see handle).
type rewriter struct {
	cells    map[int][]string    // each executed cell's source lines, by execution count
	runs     map[string]*cellRun // the cells running, by the msg_id of their execute_request
	readFile func(string) ([]byte, error)
}

func newRewriter() *rewriter {
	return &rewriter{cells: map[int][]string{}, runs: map[string]*cellRun{}, readFile: os.ReadFile}
}

// cellRun is what the rewriter keeps of one cell's execution.
type cellRun struct {
	count    int      // its execution count, from execute_input
	template *message // its last standard-error message, to carry text the rewriter emits later
	partial  string   // standard-error text after its last newline, not yet passed on
	midLine  bool     // the line partial continues was passed on already: the rest is plain text
	held     []string // complete standard-error lines held back, each with its newline
	panicAt  int      // index in held of the "panic: " line, or -1
	mainGo   []string // GoNB's generated main.go, read when a frame points into it
}

// Standard-error lines the rewriter recognises.
var (
	mustLog   = regexp.MustCompile(`^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d )?Must not error: `)
	panicLine = regexp.MustCompile(`^(panic|fatal error): `)
	exitLine  = regexp.MustCompile(`^(\^C|exit status \d+|signal: .+)$`)
	// A frame's file line: "\t/tmp/gonb_x/main.go:13 +0x8d", which GoNB may have annotated with
	// the cell: "\t \x1b[7m[[ Cell [1] Line 5 ]]\x1b[0m /tmp/gonb_x/main.go:13 +0x8d".
	frameFile  = regexp.MustCompile(`^\t\s*(?:\x1b\[7m\[\[ Cell(?: \[(\d+)\])? Line (\d+) \]\]\x1b\[0m\s*)?(\S+):(\d+)(?: \+0x[0-9a-f]+)?$`)
	gonbMainGo = regexp.MustCompile(`/gonb_[^/]+/main(_test)?\.go$`)
	cellInfo   = regexp.MustCompile(`^Cell(?:\[(\d+)\])?: Line (\d+)$`)
	caretLine  = regexp.MustCompile(`^ *\^$`)
	ansi       = regexp.MustCompile(`\x1b\[[0-9;]*m`)
)

// handle returns the messages to publish for one message GoNB published: itself, a changed
// copy, nothing (text held back), or more than one.
//
// A front end learns the kernel's state from status messages, but JupyterLab and Notebook 7
// ignore those whose request is a kernel_info_request (the server lists it among its "untracked"
// message types), and a kernel_info_request is all they send GoNB when they connect or after a
// restart: without more, they show the kernel as "Unknown" until a cell runs. (A kernel that
// also answers their history_request, as ipykernel does, is shown idle then; GoNB does not
// answer it.) So after GoNB's idle for a kernel_info_request the rewriter adds the same idle
// with no parent, which the front ends do take.
func (r *rewriter) handle(m *message) []*message {
	parent := m.par.MsgID
	if m.hdr.MsgType == "status" && m.par.MsgType == "kernel_info_request" && strings.Contains(string(m.content), `"idle"`) {
		return []*message{m, m.statusWithoutParent()}
	}
	if m.par.MsgType != "execute_request" || parent == "" {
		return []*message{m}
	}
	x := r.runs[parent]
	if x == nil {
		x = &cellRun{count: -1, panicAt: -1}
		r.runs[parent] = x
	}
	switch m.hdr.MsgType {
	case "execute_input":
		var c struct {
			Code  string `json:"code"`
			Count int    `json:"execution_count"`
		}
		if json.Unmarshal(m.content, &c) == nil {
			x.count = c.Count
			r.cells[c.Count] = strings.Split(c.Code, "\n")
		}
		return []*message{m}
	case "stream":
		var c struct {
			Name string `json:"name"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.content, &c) != nil || c.Name != "stderr" {
			return []*message{m}
		}
		x.template = m
		if out := x.feed(c.Text); out != "" {
			return []*message{m.withContent(map[string]any{"name": "stderr", "text": out}, false)}
		}
		return nil
	case "error":
		out := x.flushBefore(m)
		return append(out, r.rewriteError(x, m))
	case "status":
		if !strings.Contains(string(m.content), `"idle"`) {
			return []*message{m}
		}
		delete(r.runs, parent)
		return append(x.flushBefore(m), m)
	}
	return []*message{m}
}

// feed takes standard-error text and returns the part to pass on now.
func (x *cellRun) feed(text string) string {
	var out strings.Builder
	text = x.partial + text
	x.partial = ""
	for text != "" {
		line, rest, complete := strings.Cut(text, "\n")
		text = rest
		if !complete {
			if x.midLine || (x.panicAt < 0 && len(x.held) == 0 && !mayBecomeSpecial(line)) {
				out.WriteString(line) // plain text: no reason to hold it back
				x.midLine = true
			} else {
				x.partial = line
			}
			break
		}
		if x.midLine { // the end of a line whose start was passed on
			out.WriteString(line + "\n")
			x.midLine = false
			continue
		}
		out.WriteString(x.line(line))
	}
	return out.String()
}

// line takes one complete standard-error line (without its newline) and returns what to pass on
// now, releasing held lines that turn out to be plain text.
func (x *cellRun) line(line string) string {
	if x.panicAt >= 0 { // after "panic: ", everything belongs to the report until the run ends
		x.held = append(x.held, line+"\n")
		return ""
	}
	switch {
	case panicLine.MatchString(line):
		x.panicAt = len(x.held)
		x.held = append(x.held, line+"\n")
		return ""
	case mustLog.MatchString(line), exitLine.MatchString(line):
		x.held = append(x.held, line+"\n")
		return ""
	case len(x.held) > 0 && isMustLog(x.held[0]) && !isPanicking(x.held):
		// The must package logs "Must not error: <message>", "Panicking ...", "", then panics:
		// keep its lines while they may still be that.
		x.held = append(x.held, line+"\n")
		return ""
	case len(x.held) > 0 && isMustLog(x.held[0]) && line == "":
		x.held = append(x.held, "\n")
		return ""
	}
	out := strings.Join(x.held, "") + line + "\n"
	x.held = nil
	return out
}

func isMustLog(s string) bool { return mustLog.MatchString(s) }

// isPanicking reports whether held, which starts with the must package's log line, has reached
// its "Panicking ..." line.
func isPanicking(held []string) bool {
	for _, l := range held {
		if l == "Panicking ...\n" {
			return true
		}
	}
	return false
}

// mayBecomeSpecial reports whether a partial line may be the start of a line the rewriter holds
// back (a panic, the must package's log line, an exit status), so it must wait for the rest.
func mayBecomeSpecial(partial string) bool {
	for _, p := range []string{"panic: ", "fatal error: ", "exit status ", "signal: ", "^C", "Must not error: "} {
		if strings.HasPrefix(p, partial) || strings.HasPrefix(partial, p) {
			return true
		}
	}
	const logPrefix = "0000/00/00 00:00:00 Must not error: " // 0: any digit
	for i := 0; i < len(partial) && i < len(logPrefix); i++ {
		if c := partial[i]; logPrefix[i] == '0' && (c < '0' || c > '9') || logPrefix[i] != '0' && c != logPrefix[i] {
			return false
		}
	}
	return partial != ""
}

// flushBefore returns the standard-error text held for x that must reach the learner before m,
// the run's error or its end: everything but a panic report and exit-status lines that the
// error says again, which rewriteError accounts for.
func (x *cellRun) flushBefore(m *message) []*message {
	var text strings.Builder
	held := x.held
	if x.panicAt >= 0 && m.hdr.MsgType == "error" && isPanicExit(m) {
		held = held[:x.panicAt] // the report goes into the error
		x.held, x.panicAt = x.held[x.panicAt:], 0
		if len(held) > 0 && isMustLog(held[0]) {
			held = nil // the must package's log line says what the panic says
		}
	} else {
		x.held = nil
		x.panicAt = -1
	}
	evalue := errorValue(m)
	for _, l := range held {
		if exitLine.MatchString(strings.TrimSuffix(l, "\n")) && m.hdr.MsgType == "error" && strings.Contains(evalue, strings.TrimSuffix(l, "\n")) {
			continue // the error says it
		}
		text.WriteString(l)
	}
	if x.partial != "" {
		text.WriteString(x.partial)
		x.partial = ""
	}
	if text.Len() == 0 || x.template == nil {
		return nil
	}
	return []*message{x.template.withContent(map[string]any{"name": "stderr", "text": text.String()}, true)}
}

// isPanicExit reports whether error message m is GoNB's for a program that ended the way a
// panic ends it: exit status 2.
func isPanicExit(m *message) bool { return errorValue(m) == "exit status 2" }

func errorValue(m *message) string {
	var c struct {
		EValue string `json:"evalue"`
	}
	_ = json.Unmarshal(m.content, &c)
	return c.EValue
}

// errorContent is an error message's content.
type errorContent struct {
	EName     string   `json:"ename"`
	EValue    string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

// rewriteError returns the run's error message as the learner should read it.
func (r *rewriter) rewriteError(x *cellRun, m *message) *message {
	var c errorContent
	if json.Unmarshal(m.content, &c) != nil {
		return m
	}
	if x.panicAt >= 0 && len(x.held) > 0 {
		report := x.held
		x.held, x.panicAt = nil, -1
		return m.withContent(r.panicError(x, report), false)
	}
	if out, ok := r.compileError(c); ok {
		return m.withContent(out, false)
	}
	return m
}

// panicError makes the error of a panic from the runtime's report (its lines from "panic: "
// on): the message, then where it happened in the learner's cells.
func (r *rewriter) panicError(x *cellRun, report []string) errorContent {
	var msg []string
	i := 0
	for ; i < len(report); i++ {
		l := strings.TrimSuffix(report[i], "\n")
		if l == "" || strings.HasPrefix(l, "goroutine ") {
			break
		}
		if strings.HasPrefix(l, "[signal ") { // the signal's registers: nothing a learner reads
			continue
		}
		msg = append(msg, l)
	}
	kind := "panic"
	if strings.HasPrefix(report[0], "fatal error: ") {
		kind = "fatal error"
	}
	message := strings.TrimPrefix(strings.Join(msg, "\n"), kind+": ")
	traceback := append([]string(nil), msg...)
	// The frames of the first goroutine (the one that failed), deepest first.
	seen := map[string]bool{}
	var where []string
	started := false
	for ; i < len(report); i++ {
		l := strings.TrimSuffix(report[i], "\n")
		if strings.HasPrefix(l, "goroutine ") {
			if started {
				break
			}
			started = true
			continue
		}
		f := frameFile.FindStringSubmatch(l)
		if f == nil {
			continue
		}
		count, line := -1, 0
		if f[2] != "" {
			count, _ = strconv.Atoi(f[1])
			if f[1] == "" {
				count = x.count
			}
			line, _ = strconv.Atoi(f[2])
		} else if gonbMainGo.MatchString(f[3]) {
			n, _ := strconv.Atoi(f[4])
			count, line = r.cellLine(x, f[3], n)
		}
		if count < 0 || line < 1 {
			continue
		}
		key := fmt.Sprint(count, ":", line)
		if seen[key] {
			continue
		}
		seen[key] = true
		at := fmt.Sprintf("cell [%d], line %d", count, line)
		if len(where) > 0 {
			at = "called from " + at
		}
		if code := r.codeLine(count, line); code != "" {
			at += ":   " + code
		}
		where = append(where, at)
	}
	if len(where) > 0 {
		traceback = append(traceback, "")
		traceback = append(traceback, where...)
	}
	return errorContent{EName: kind, EValue: message, Traceback: traceback}
}

// codeLine returns line (from 1) of the cell executed as count, without its indentation.
func (r *rewriter) codeLine(count, line int) string {
	lines := r.cells[count]
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line-1])
}

// cellLine finds which cell line GoNB's generated main.go has at line n: GoNB copies each
// cell's declarations and the running cell's code into it line for line, so the line is the one
// of the executed cells whose text, and the text around it, match. It returns -1 when no cell
// line matches, or more than one match equally well.
func (r *rewriter) cellLine(x *cellRun, path string, n int) (count, line int) {
	if x.mainGo == nil {
		b, err := r.readFile(path)
		if err != nil {
			return -1, 0
		}
		x.mainGo = strings.Split(string(b), "\n")
	}
	src := x.mainGo
	if n < 1 || n > len(src) || strings.TrimSpace(src[n-1]) == "" {
		return -1, 0
	}
	want := strings.TrimSpace(src[n-1])
	best, bestCount, bestLine, tied := -1, -1, 0, false
	for c, lines := range r.cells {
		for i, l := range lines {
			if strings.TrimSpace(l) != want {
				continue
			}
			score := 0
			for k := -3; k <= 3; k++ {
				a, b := n-1+k, i+k
				if k != 0 && a >= 0 && a < len(src) && b >= 0 && b < len(lines) && strings.TrimSpace(src[a]) == strings.TrimSpace(lines[b]) && strings.TrimSpace(lines[b]) != "" {
					score++
				}
			}
			switch {
			case score > best || score == best && c > bestCount && c == x.count:
				best, bestCount, bestLine, tied = score, c, i+1, false
			case score == best && c != bestCount:
				tied = true
			}
		}
	}
	if best < 0 || tied && best == 0 {
		return -1, 0
	}
	return bestCount, bestLine
}

// compileError rewrites GoNB's error for a cell that does not compile, when it is one: each
// compiler message with its cell, line, code and column, and nothing of the generated main.go.
func (r *rewriter) compileError(c errorContent) (errorContent, bool) {
	var traceback, messages []string
	found := false
	for _, entry := range c.Traceback {
		lines := strings.Split(ansi.ReplaceAllString(entry, ""), "\n")
		info := cellInfo.FindStringSubmatch(lines[0])
		if info == nil {
			if e := strings.TrimSpace(lines[0]); e != "" && !strings.HasPrefix(e, "# gonb_") || len(lines) > 1 {
				traceback = append(traceback, strings.Join(lines, "\n"))
			}
			continue
		}
		found = true
		count := -1
		if info[1] != "" {
			count, _ = strconv.Atoi(info[1])
		}
		line, _ := strconv.Atoi(info[2])
		message := ""
		for i := len(lines) - 1; i > 0; i-- {
			if s := strings.TrimSpace(lines[i]); s != "" {
				message = s
				break
			}
		}
		at := fmt.Sprintf("line %d", line)
		if count >= 0 {
			at = fmt.Sprintf("cell [%d], line %d", count, line)
		}
		traceback = append(traceback, at+": "+message)
		messages = append(messages, at+": "+message)
		for i := 2; i < len(lines); i++ { // the code line is the one above the caret
			if caretLine.MatchString(lines[i]) {
				code, caret := showCaret(lines[i-1], strings.Index(lines[i], "^"))
				traceback = append(traceback, "    "+code, "    "+caret)
				break
			}
		}
	}
	if !found {
		return c, false
	}
	return errorContent{EName: "compile error", EValue: strings.Join(messages, "\n"), Traceback: traceback}, true
}

// showCaret returns code with its indentation dropped, and a line with a caret under column col
// (from 0, counting a tab as one column, as the compiler does).
func showCaret(code string, col int) (string, string) {
	trimmed := strings.TrimLeft(code, " \t")
	col -= len(code) - len(trimmed)
	if col < 0 || col > len(trimmed) {
		return trimmed, ""
	}
	pad := strings.Map(func(r rune) rune {
		if r == '\t' {
			return '\t'
		}
		return ' '
	}, trimmed[:col])
	return trimmed, pad + "^"
}
