//go:build js && wasm

// Command cellswasm is internal/cells for the browser's toolchain worker:
// built with GOOS=js GOARCH=wasm by scripts/build-wasm, it registers
// globalThis.backofflabCells.merge and stays alive to serve it.
//
// merge(request) takes a JSON string {"state": State or null, "cell": id,
// "source": text, "names": {path: package name}} and returns a JSON string
// {"program": Program, "next": State} or {"error": {cell, line, column,
// msg}}. "next" is the state to keep if the program compiles.
package main

import (
	"encoding/json"
	"errors"
	"syscall/js"

	"github.com/backofflab/backofflab/internal/cells"
)

type request struct {
	State  *cells.State      `json:"state"`
	Cell   int               `json:"cell"`
	Source string            `json:"source"`
	Names  map[string]string `json:"names"`
}

type response struct {
	Program *cells.Program `json:"program,omitempty"`
	Next    *cells.State   `json:"next,omitempty"`
	Error   *cells.Error   `json:"error,omitempty"`
	Fatal   string         `json:"fatal,omitempty"`
}

func merge(req request) (resp response) {
	s := req.State
	if s == nil {
		s = &cells.State{}
	}
	names := req.Names
	cells.PackageNames = func(p string) string { return names[p] }
	p, err := s.Merge(req.Cell, req.Source)
	var cellErr *cells.Error
	switch {
	case errors.As(err, &cellErr):
		resp.Error = cellErr
	case err != nil:
		resp.Fatal = err.Error()
	default:
		next := *s
		next.Commit(p)
		resp.Program, resp.Next = p, &next
	}
	return resp
}

func main() {
	api := js.Global().Get("Object").New()
	api.Set("merge", js.FuncOf(func(this js.Value, args []js.Value) any {
		var req request
		var resp response
		if len(args) != 1 || args[0].Type() != js.TypeString {
			resp.Fatal = "merge takes one argument, a JSON string"
		} else if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			resp.Fatal = "merge: request is not JSON of {state, cell, source}: " + err.Error()
		} else {
			resp = merge(req)
		}
		out, _ := json.Marshal(resp)
		return string(out)
	}))
	js.Global().Set("backofflabCells", api)
	select {}
}
