package lab

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestNoteInMemoryNetwork(t *testing.T) {
	var b bytes.Buffer
	old := noteTo
	noteTo, noteOnce = &b, sync.Once{}
	defer func() { noteTo, noteOnce = old, sync.Once{} }()
	NoteInMemoryNetwork()
	NoteInMemoryNetwork()
	if runtime.GOOS == "js" {
		if b.String() != InMemoryNetworkNote+"\n" {
			t.Errorf("in the browser the note is written once, got %q", b.String())
		}
	} else if b.Len() != 0 || InBrowser() {
		t.Errorf("outside a browser nothing is written, got %q", b.String())
	}
	// The browser tests set the browser's own stderr lines apart by this prefix.
	if !strings.HasPrefix(InMemoryNetworkNote, "in the browser: ") {
		t.Errorf("the note must start %q: %q", "in the browser: ", InMemoryNetworkNote)
	}
}
