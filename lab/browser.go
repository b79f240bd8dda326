package lab

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// InBrowser reports whether the program runs in a browser tab: Go in the
// browser (web/README.md) builds a notebook's cells for GOOS=js.
func InBrowser() bool { return runtime.GOOS == "js" }

// InMemoryNetworkNote is what NoteInMemoryNetwork writes.
const InMemoryNetworkNote = "in the browser: these clients and servers talk over Go's in-memory network (a browser tab opens no sockets), so their timings are the browser's, not a kernel's"

var noteOnce sync.Once

// noteTo is where NoteInMemoryNetwork writes; tests replace it.
var noteTo io.Writer = os.Stderr

// NoteInMemoryNetwork tells a learner whose cell runs in the browser,
// once per cell, on standard error, that the real clients and servers the
// cell starts (lesson 11's storm, lesson 12's and 13's HTTP runs) talk
// over Go's in-memory network: GOOS=js has no sockets, and its net
// package connects a Dial to a Listen of the same program in memory.
// Outside a browser it does nothing. The models that listen call it.
func NoteInMemoryNetwork() {
	if !InBrowser() {
		return
	}
	noteOnce.Do(func() { fmt.Fprintln(noteTo, InMemoryNetworkNote) })
}
