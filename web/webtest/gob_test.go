// Package webtest tests the JavaScript of web/src against the Go it must
// agree with, running it under Node.js.
package webtest

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// node runs a script of web/test with args and stdin, and returns its
// stdout; it skips the test where Node.js is missing.
func node(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to test web/src (scripts/setup installs what the tests need): %v", err)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = "../test"
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// TestGobDecoderReadsGonbui encodes what gonbui sends down GONB_PIPE (the
// same protocol types, through encoding/gob) and checks that gob.js decodes
// every field.
func TestGobDecoderReadsGonbui(t *testing.T) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 255}, 300)
	msgs := []*protocol.DisplayData{
		{Data: map[protocol.MIMEType]any{protocol.MIMETextHTML: "<b>hello</b> ✓"}},
		{Data: map[protocol.MIMEType]any{protocol.MIMEImagePNG: png}},
		{Data: map[protocol.MIMEType]any{protocol.MIMETextHTML: "<progress>"}, DisplayID: "backofflab-progress-7"},
		{Data: map[protocol.MIMEType]any{protocol.MIMECommValue: &protocol.CommValue{Address: protocol.GonbuiSyncAddress, Value: 3}}},
		{Data: map[protocol.MIMEType]any{protocol.MIMETextMarkdown: "# t", protocol.MIMETextPlain: "t"}, Metadata: map[string]any{"width": 640, "ratio": -1.5}},
		{Data: map[protocol.MIMEType]any{protocol.MIMECommValue: &protocol.CommValue{Address: protocol.GonbuiSyncAddress, Value: 1 << 40}}},
	}
	var stream bytes.Buffer
	enc := gob.NewEncoder(&stream)
	for _, m := range msgs {
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	out := node(t, stream.Bytes(), "gobcheck.mjs")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(msgs) {
		t.Fatalf("decoded %d values, want %d:\n%s", len(lines), len(msgs), out)
	}
	type iface struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	type decoded struct {
		Data      map[string]json.RawMessage
		Metadata  map[string]iface
		DisplayID string
	}
	var got []decoded
	for _, l := range lines {
		var d decoded
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, d)
	}
	str := func(raw json.RawMessage) (typ, value string) {
		var i iface
		if err := json.Unmarshal(raw, &i); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		return i.Type, string(i.Value)
	}
	if typ, v := str(got[0].Data["text/html"]); typ != "string" || v != `"<b>hello</b> ✓"` {
		t.Errorf("html: got %s %s", typ, v)
	}
	typ, v := str(got[1].Data["image/png"])
	var b64 struct{ Base64 string }
	json.Unmarshal([]byte(v), &b64)
	if typ != "[]uint8" || b64.Base64 == "" {
		t.Errorf("png: got %s %s", typ, v)
	} else if want := encodeBase64(png); b64.Base64 != want {
		t.Errorf("png bytes differ: got %d base64 characters, want %d", len(b64.Base64), len(want))
	}
	if got[2].DisplayID != "backofflab-progress-7" {
		t.Errorf("DisplayID: got %q", got[2].DisplayID)
	}
	for i, id := range map[int]string{3: "3", 5: "1099511627776"} {
		typ, v := str(got[i].Data["gonb/comm_value"])
		if typ != "github.com/janpfeifer/gonb/gonbui/protocol.CommValue" || !strings.Contains(v, `"Address":"#gonbui/sync"`) || !strings.Contains(v, `"Value":{"type":"int","value":`+id+`}`) {
			t.Errorf("sync %s: got %s %s", id, typ, v)
		}
	}
	if got[4].Metadata["width"].Type != "int" || string(got[4].Metadata["width"].Value) != "640" || string(got[4].Metadata["ratio"].Value) != "-1.5" {
		t.Errorf("metadata: got %+v", got[4].Metadata)
	}
}

// TestSyncAcksReadByGonbui decodes the acknowledgements gob.js writes with
// encoding/gob into protocol.CommValue, as gonbui's pollReaderPipe does.
func TestSyncAcksReadByGonbui(t *testing.T) {
	ids := []int{0, 1, 127, 128, 70000, -5}
	args := []string{"gobcheck.mjs", "acks"}
	for _, id := range ids {
		args = append(args, itoa(id))
	}
	out := node(t, nil, args...)
	dec := gob.NewDecoder(bytes.NewReader(out))
	for _, id := range ids {
		var v protocol.CommValue
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("ack %d: %v", id, err)
		}
		if v.Address != protocol.GonbuiSyncAckAddress || v.Request || v.Value != id {
			t.Errorf("ack %d: got %+v", id, v)
		}
	}
	var extra protocol.CommValue
	if err := dec.Decode(&extra); err == nil {
		t.Errorf("more than %d acks: %+v", len(ids), extra)
	}
}
