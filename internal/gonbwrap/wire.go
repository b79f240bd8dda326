package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// delimiter separates a Jupyter message's routing frames from its body.
var delimiter = []byte("<IDS|MSG>")

// message is one Jupyter message as it travels on a ZMQ socket: routing frames (on IOPub, the
// topic), the delimiter, the signature, then header, parent header, metadata and content (JSON)
// and any binary buffers. See https://jupyter-client.readthedocs.io/en/latest/messaging.html.
type message struct {
	idents                            [][]byte
	header, parent, metadata, content json.RawMessage
	buffers                           [][]byte

	// Decoded on demand.
	hdr, par header
}

// header is the part of a message header (or parent header) the wrapper reads.
type header struct {
	MsgID   string `json:"msg_id"`
	MsgType string `json:"msg_type"`
	Session string `json:"session"`
}

// parseMessage reads the frames of one message.
func parseMessage(frames [][]byte) (*message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) {
		return nil, errors.New("a message has no <IDS|MSG> delimiter")
	}
	body := frames[i+1:]
	if len(body) < 5 {
		return nil, fmt.Errorf("a message has %d frames after its delimiter, want at least 5 (signature, header, parent header, metadata, content)", len(body))
	}
	m := &message{
		idents: frames[:i], header: body[1], parent: body[2], metadata: body[3], content: body[4], buffers: body[5:],
	}
	if err := json.Unmarshal(m.header, &m.hdr); err != nil {
		return nil, fmt.Errorf("a message's header is not JSON: %v", err)
	}
	if len(m.parent) > 0 {
		_ = json.Unmarshal(m.parent, &m.par) // {} for a message no request caused
	}
	return m, nil
}

// frames returns the message's frames, signed with key (HMAC-SHA256, the scheme Jupyter
// uses by default; no key, no signature).
func (m *message) frames(key []byte) [][]byte {
	sig := ""
	if len(key) > 0 {
		h := hmac.New(sha256.New, key)
		for _, part := range [][]byte{m.header, m.parent, m.metadata, m.content} {
			h.Write(part)
		}
		sig = hex.EncodeToString(h.Sum(nil))
	}
	out := make([][]byte, 0, len(m.idents)+6+len(m.buffers))
	out = append(out, m.idents...)
	out = append(out, delimiter, []byte(sig), m.header, m.parent, m.metadata, m.content)
	return append(out, m.buffers...)
}

// withContent returns a copy of m with other content and, when newID, a header of its own (a
// new msg_id and date): for a message the wrapper adds beside the one it was made from.
func (m *message) withContent(content any, newID bool) *message {
	c := *m
	c.content, _ = json.Marshal(content)
	if newID {
		var h map[string]any
		if json.Unmarshal(m.header, &h) == nil {
			h["msg_id"] = newMsgID()
			h["date"] = time.Now().UTC().Format(time.RFC3339Nano)
			c.header, _ = json.Marshal(h)
			c.hdr.MsgID = h["msg_id"].(string)
		}
	}
	return &c
}

// statusWithoutParent returns a status message like m (a status GoNB published), with the same
// state and session, a new id and no parent.
func (m *message) statusWithoutParent() *message {
	c := m.withContent(json.RawMessage(m.content), true)
	c.parent = json.RawMessage("{}")
	c.par = header{}
	return c
}

// newMsgID returns a random message id.
func newMsgID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
