package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// kernel plays GoNB's side of one execution for the rewriter: each message it publishes, with
// the execute_request it answers as parent, and what the rewriter makes of them.
type kernel struct {
	t      *testing.T
	r      *rewriter
	parent string
	n      int
	out    []*message
}

func newKernel(t *testing.T) *kernel {
	return &kernel{t: t, r: newRewriter()}
}

// execute starts a new cell run: GoNB's busy status and execute_input.
func (k *kernel) execute(count int, code string) {
	k.parent = fmt.Sprintf("request-%d", count)
	k.publish("status", map[string]any{"execution_state": "busy"})
	k.publish("execute_input", map[string]any{"code": code, "execution_count": count})
}

func (k *kernel) publish(msgType string, content any) {
	k.t.Helper()
	k.n++
	hdr, _ := json.Marshal(map[string]any{"msg_id": fmt.Sprint("m", k.n), "msg_type": msgType, "session": "s", "username": "u", "version": "5.4", "date": "2026-12-01T21:56:09Z"})
	par, _ := json.Marshal(map[string]any{"msg_id": k.parent, "msg_type": "execute_request", "session": "s"})
	body, _ := json.Marshal(content)
	m, err := parseMessage([][]byte{[]byte("stream"), delimiter, []byte("sig"), hdr, par, []byte("{}"), body})
	if err != nil {
		k.t.Fatal(err)
	}
	k.out = append(k.out, k.r.handle(m)...)
}

func (k *kernel) stderr(chunks ...string) {
	for _, c := range chunks {
		k.publish("stream", map[string]any{"name": "stderr", "text": c})
	}
}

// fail ends the run the way GoNB ends a failed one: the status on standard error (for a program
// that ran), the error, idle.
func (k *kernel) fail(status string, traceback ...string) {
	if status != "" {
		k.stderr(status + "\n")
	}
	if traceback == nil {
		traceback = []string{status}
	}
	k.publish("error", map[string]any{"ename": "ERROR", "evalue": status, "traceback": traceback})
	k.publish("status", map[string]any{"execution_state": "idle"})
}

// seen returns what the front end gets: its standard error, and its error's name, value and
// traceback.
func (k *kernel) seen() (stderr string, e errorContent) {
	for _, m := range k.out {
		switch m.hdr.MsgType {
		case "stream":
			var c struct{ Name, Text string }
			_ = json.Unmarshal(m.content, &c)
			if c.Name == "stderr" {
				stderr += c.Text
			}
		case "error":
			_ = json.Unmarshal(m.content, &e)
		}
	}
	return stderr, e
}

const mustCell = "import \"github.com/janpfeifer/must\"\nimport \"errors\"\n%%\nx := 1\nmust.M(errors.New(\"boom: the thing failed\"))\n_ = x"

// A cell that panics through must: the learner reads the message, and the cell and line with its
// code, in one error; not the must package's log line and frames, nor "exit status 2" twice.
// (The report arrives in pieces, cut wherever GoNB's reads of the program's output fell.)
func TestPanicReadsAsItsMessageAndCellLine(t *testing.T) {
	k := newKernel(t)
	k.execute(1, mustCell)
	k.stderr("2026/12/01 21:56:09 Must not error: boom: the thing failed\nPanicking ...\n\n", "panic: ", "boom: the thing failed", "\n", "\n", "goroutine ", "1", " [", "running", "]:\n",
		"github.com/janpfeifer/must.init.func1", "(", "{", "0x4e4cf8", ", ", "0x332e27118040})\n\t/root/go/pkg/mod/github.com/janpfeifer/must@v0.2.0/must.go:13 +0xbd\nmain.main()\n\t \x1b[7m[[ Cell [1] Line 5 ]]\x1b[0m /tmp/gonb_95540b22/main.go:13 +0x8d\n")
	k.fail("exit status 2")
	stderr, e := k.seen()
	if stderr != "" {
		t.Errorf("standard error shows %q, want nothing: the error says it all", stderr)
	}
	want := errorContent{EName: "panic", EValue: "boom: the thing failed", Traceback: []string{
		"panic: boom: the thing failed", "", `cell [1], line 5:   must.M(errors.New("boom: the thing failed"))`}}
	if fmt.Sprint(e) != fmt.Sprint(want) {
		t.Errorf("error\n  %q\nwant\n  %q", e, want)
	}
}

// Frames GoNB did not annotate (the runtime wrote "main.go", ":" and "9" apart) are found in the
// generated main.go, and traced to the cells they came from: the function's cell, then the cell
// that called it.
func TestPanicFramesFoundInTheGeneratedMainGo(t *testing.T) {
	k := newKernel(t)
	mainGo := "package main\n\nimport (\n\t\"flag\"\n\t\"fmt\"\n)\n\nfunc f(s []int) int {\n\treturn s[3]\n}\n\n\nfunc main() {\n\tflag.Parse()\nvar s []int\nfmt.Println(\"before\")\n_ = f(s)\n\n}\n"
	k.r.readFile = func(path string) ([]byte, error) {
		if path != "/tmp/gonb_82c8ebd6/main.go" {
			return nil, os.ErrNotExist
		}
		return []byte(mainGo), nil
	}
	k.execute(1, "func f(s []int) int {\n\treturn s[3]\n}")
	k.publish("status", map[string]any{"execution_state": "idle"})
	k.execute(2, "%%\nvar s []int\nfmt.Println(\"before\")\n_ = f(s)")
	k.publish("stream", map[string]any{"name": "stdout", "text": "before\n"})
	k.stderr("panic: ", "runtime error: index out of range [3] with length 0", "\n", "\n", "goroutine ", "1", " [", "running", "]:\n", "main.f", "(", "...", ")\n",
		"\t", "/tmp/gonb_82c8ebd6/main.go", ":", "9", "\n", "main.main", "(", ")\n", "\t", "/tmp/gonb_82c8ebd6/main.go", ":", "17 +0x95\n")
	k.fail("exit status 2")
	stderr, e := k.seen()
	want := []string{"panic: runtime error: index out of range [3] with length 0", "",
		"cell [1], line 2:   return s[3]", "called from cell [2], line 4:   _ = f(s)"}
	if stderr != "" || e.EName != "panic" || strings.Join(e.Traceback, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr %q, error %q\nwant no stderr and the traceback\n  %q", stderr, e, want)
	}
}

// A program that exits with a status of its own: the status once, as the error.
func TestExitStatusShownOnce(t *testing.T) {
	k := newKernel(t)
	k.execute(3, "%%\nfmt.Fprintln(os.Stderr, \"giving up\")\nos.Exit(3)")
	k.stderr("giving up\n")
	k.fail("exit status 3")
	stderr, e := k.seen()
	if stderr != "giving up\n" || e.EValue != "exit status 3" || fmt.Sprint(e.Traceback) != "[exit status 3]" {
		t.Errorf("stderr %q, error %q; want the program's line and the status once, as the error", stderr, e)
	}
}

// Text on standard error that is not a failure reaches the learner as it comes, a partial line
// too, unless it might be the start of a failure's report; and text that looked like a report
// but belongs to a run that ended well is all passed on, in order, before the run's end.
func TestOtherStandardErrorPassesThrough(t *testing.T) {
	k := newKernel(t)
	k.execute(4, "%%\n...")
	k.stderr("working")
	if s, _ := k.seen(); s != "working" {
		t.Fatalf("a partial line of plain text: %q reached the learner, want it at once", s)
	}
	k.stderr(" on it\n", "pan")
	if s, _ := k.seen(); s != "working on it\n" {
		t.Fatalf("%q reached the learner: \"pan\" may start a panic and must wait for its line", s)
	}
	k.stderr("cakes\n", "panic: not really\n", "just text\n")
	if s, _ := k.seen(); s != "working on it\npancakes\n" {
		t.Fatalf("%q reached the learner; want the pancakes, and the panic-like text held", s)
	}
	k.publish("status", map[string]any{"execution_state": "idle"})
	s, e := k.seen()
	if s != "working on it\npancakes\npanic: not really\njust text\n" || e.EName != "" {
		t.Errorf("after a run that ended well the learner read %q and the error %q; want every line, no error", s, e)
	}
	if last := k.out[len(k.out)-1]; last.hdr.MsgType != "status" {
		t.Errorf("the held text came after the run's end (%s)", last.hdr.MsgType)
	}
}

// A cell that does not compile: each message with its cell, line, code and column; nothing of
// the generated main.go (its name, its main function) and no GoNB package line.
func TestCompileErrorReadsAsCellLineAndCode(t *testing.T) {
	k := newKernel(t)
	k.execute(4, "%%\nx := 1\ny := undefinedThing + 2\n_ = x")
	k.publish("error", map[string]any{"ename": "ERROR",
		"evalue": "# gonb_82c8ebd6\n./main.go:15:1: declared and not used: y\n./main.go:15:6: undefined: undefinedThing\n",
		"traceback": []string{"# gonb_82c8ebd6",
			"Cell[4]: Line 3\nfunc main() {\n\tflag.Parse()\nx := 1\ny := undefinedThing + 2\n^\n_ = x\n\n\n\x1b[31mdeclared and not used: y\x1b[0m",
			"Cell[4]: Line 3\nfunc main() {\n\tflag.Parse()\nx := 1\ny := undefinedThing + 2\n     ^\n_ = x\n\n\nundefined: undefinedThing", ""}})
	k.publish("status", map[string]any{"execution_state": "idle"})
	_, e := k.seen()
	want := []string{
		"cell [4], line 3: declared and not used: y", "    y := undefinedThing + 2", "    ^",
		"cell [4], line 3: undefined: undefinedThing", "    y := undefinedThing + 2", "         ^"}
	if e.EName != "compile error" || strings.Join(e.Traceback, "\n") != strings.Join(want, "\n") {
		t.Errorf("error %q\nwant the traceback\n  %q", e, want)
	}
	if strings.Contains(e.EValue, "main.go") || strings.Contains(e.EValue, "gonb_") {
		t.Errorf("error value %q names the generated file", e.EValue)
	}

	// A syntax error, which GoNB finds itself before compiling.
	k = newKernel(t)
	k.execute(6, "%%\nfmt.Println(\"hello\"")
	k.publish("error", map[string]any{"ename": "ERROR",
		"evalue":    "/tmp/gonb_82c8ebd6/main.go:5:20: missing ',' before newline in argument list (and 1 more errors)",
		"traceback": []string{"Cell[6]: Line 2\n\nfunc main() {\n\tflag.Parse()\nfmt.Println(\"hello\"\n                   ^\n\n}\n\nmissing ',' before newline in argument list (and 1 more errors)"}})
	_, e = k.seen()
	want = []string{"cell [6], line 2: missing ',' before newline in argument list (and 1 more errors)", `    fmt.Println("hello"`, "                       ^"}
	if strings.Join(e.Traceback, "\n") != strings.Join(want, "\n") {
		t.Errorf("syntax error %q\nwant the traceback\n  %q", e.Traceback, want)
	}
}

// An error that is neither (go get failing, say) is passed on as GoNB made it.
func TestOtherErrorsPassThrough(t *testing.T) {
	k := newKernel(t)
	k.execute(7, "import \"example.com/nothing\"")
	k.publish("error", map[string]any{"ename": "ERROR", "evalue": "failed to run \"go get\": exit status 1", "traceback": []string{"failed to run \"go get\": exit status 1"}})
	_, e := k.seen()
	if e.EName != "ERROR" || e.EValue != "failed to run \"go get\": exit status 1" {
		t.Errorf("error %q, want GoNB's own", e)
	}
}

// GoNB's idle for a kernel_info_request, which front ends ignore, comes with an idle they take:
// no parent, the same state and session, an id of its own.
func TestKernelInfoIdleIsRepeatedWithoutParent(t *testing.T) {
	r := newRewriter()
	hdr := []byte(`{"msg_id":"m1","msg_type":"status","session":"s","username":"u","version":"5.4","date":"2026-12-01T21:53:13Z"}`)
	par := []byte(`{"msg_id":"k1","msg_type":"kernel_info_request","session":"s"}`)
	m, err := parseMessage([][]byte{[]byte("status"), delimiter, []byte("sig"), hdr, par, []byte("{}"), []byte(`{"execution_state":"idle"}`)})
	if err != nil {
		t.Fatal(err)
	}
	out := r.handle(m)
	if len(out) != 2 || out[0] != m {
		t.Fatalf("%d messages, want GoNB's and one more", len(out))
	}
	extra := out[1]
	if string(extra.parent) != "{}" || string(extra.content) != `{"execution_state":"idle"}` || extra.hdr.MsgID == "m1" || !strings.Contains(string(extra.header), `"session":"s"`) {
		t.Errorf("extra status: header %s, parent %s, content %s", extra.header, extra.parent, extra.content)
	}
	busy, _ := parseMessage([][]byte{delimiter, []byte("sig"), hdr, par, []byte("{}"), []byte(`{"execution_state":"busy"}`)})
	if out := r.handle(busy); len(out) != 1 {
		t.Errorf("a busy status for kernel_info got %d messages, want itself only", len(out))
	}
}

// Messages the wrapper changes are signed as Jupyter checks them: HMAC-SHA256 of header, parent
// header, metadata and content, with the connection's key.
func TestFramesAreSigned(t *testing.T) {
	m, err := parseMessage([][]byte{[]byte("topic"), delimiter, []byte("old"), []byte(`{"msg_id":"1","msg_type":"status","session":"s"}`), []byte("{}"), []byte("{}"), []byte(`{"execution_state":"idle"}`)})
	if err != nil {
		t.Fatal(err)
	}
	f := m.frames([]byte("secret"))
	if string(f[0]) != "topic" || string(f[1]) != "<IDS|MSG>" || string(f[2]) != "ec27833b327be0a5526afd154dd12459a3864c8cf52d19680494e1316aaee5e3" {
		t.Errorf("frames %q", f[:3])
	}
	if f := m.frames(nil); string(f[2]) != "" {
		t.Errorf("without a key the signature is %q, want empty", f[2])
	}
	if _, err := parseMessage([][]byte{[]byte("no delimiter")}); err == nil {
		t.Error("a message without a delimiter parsed")
	}
}
