// Command gocacheprog is the class's build cache, as the go command's GOCACHEPROG: every account
// builds against one cache that is read-only to all of them, and keeps what it compiles itself in
// a cache of its own.
//
//	GOCACHEPROG="/path/to/gocacheprog -shared DIR" go build ...
//
// scripts/class warms DIR as root (the standard library and every package a lesson imports, in the
// go command's own cache layout) and leaves it root's, read-only to everyone; each account's
// kernels, the cell programs' daemon and the grading sandbox run their go commands with this
// program. A "get" looks in the account's own cache first (GOCACHE, or the user cache folder's
// go-build), then in DIR, and answers with the path of the file found, which the go command only
// reads. A "put" writes to the account's own cache only. So no file is written by two accounts, and
// no account can change what another one builds from: the shared files are root's, and each own
// cache sits in its owner's private home. (Before, each home held hard links to the shared files:
// one chown of a home gave that learner every other learner's compiled packages.)
//
// The protocol is cmd/go/internal/cacheprog's: JSON requests on standard input, one a line, a
// "put" followed by its body as a base64 JSON string; JSON responses on standard output.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// request and response are cacheprog.Request and cacheprog.Response (that package is internal
// to cmd/go).
type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// A cache is a folder in the go command's disk layout: DIR/xx/ACTION-a holds
// "v1 ACTION OUTPUT SIZE TIME\n" (hex ids, decimal size and Unix nanoseconds, each number right
// aligned in 20 columns), DIR/xx/OUTPUT-d the output, xx being the id's first byte in hex.
type cache string

const entryLen = 2 + 1 + 64 + 1 + 64 + 1 + 20 + 1 + 20 + 1

func (c cache) file(id []byte, kind string) string {
	h := hex.EncodeToString(id)
	return filepath.Join(string(c), h[:2], h+"-"+kind)
}

// get returns the output file, output id, size and time stored for the action, or ok false.
func (c cache) get(action []byte) (path string, out []byte, size int64, t time.Time, ok bool) {
	b, err := os.ReadFile(c.file(action, "a"))
	if err != nil || len(b) != entryLen || !bytes.HasPrefix(b, []byte("v1 ")) || b[entryLen-1] != '\n' {
		return "", nil, 0, t, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[1] != hex.EncodeToString(action) {
		return "", nil, 0, t, false
	}
	out, err = hex.DecodeString(f[2])
	if err != nil || len(out) != sha256.Size {
		return "", nil, 0, t, false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	nanos, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return "", nil, 0, t, false
	}
	path = c.file(out, "d")
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || st.Size() != size {
		return "", nil, 0, t, false
	}
	return path, out, size, time.Unix(0, nanos), true
}

// put stores the body as the action's output; it returns the output file.
func (c cache) put(action, out, body []byte) (string, error) {
	if len(action) != sha256.Size || len(out) != sha256.Size {
		return "", errors.New("gocacheprog: a put needs a 32-byte ActionID and OutputID")
	}
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], out) {
		return "", errors.New("gocacheprog: the body's SHA-256 is not its OutputID")
	}
	path := c.file(out, "d")
	if err := writeFile(path, body); err != nil {
		return "", err
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", action, out, len(body), time.Now().UnixNano())
	if err := writeFile(c.file(action, "a"), []byte(entry)); err != nil {
		return "", err
	}
	return path, nil
}

// writeFile writes b to path through a temporary file in the same folder (a go command reading
// path at the same moment sees the old file or the new one, never a part).
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// used marks an entry of the own cache as used (for trim), as the go command does: at most once
// an hour.
func used(path string) {
	if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > time.Hour {
		now := time.Now()
		_ = os.Chtimes(path, now, now)
	}
}

// trim removes, once a day, the own cache's files unused for five days (the go command's own
// rule for its cache, which it does not apply when a GOCACHEPROG serves the builds).
func (c cache) trim() {
	stamp := filepath.Join(string(c), "gocacheprog-trim.txt")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < 24*time.Hour {
		return
	}
	cutoff := time.Now().Add(-5 * 24 * time.Hour)
	dirs, _ := filepath.Glob(filepath.Join(string(c), "[0-9a-f][0-9a-f]"))
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
	_ = os.WriteFile(stamp, []byte(time.Now().Format(time.RFC3339)+"\n"), 0o600)
}

// ownCache is where the go command would keep this account's cache: GOCACHE, or the user cache
// folder's go-build.
func ownCache() (cache, error) {
	if d := os.Getenv("GOCACHE"); d != "" && d != "off" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("gocacheprog: GOCACHE must be an absolute path, got %q", d)
		}
		return cache(d), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("gocacheprog: no cache folder for this account (set GOCACHE): %v", err)
	}
	return cache(filepath.Join(d, "go-build")), nil
}

func main() {
	var shared string
	flag.StringVar(&shared, "shared", "", "the read-only cache every account shares (the go command's cache layout)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: GOCACHEPROG=\"%s -shared DIR\" go build ...\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || shared == "" || !filepath.IsAbs(shared) {
		fmt.Fprintln(os.Stderr, "gocacheprog: -shared must be the absolute path of the shared cache folder, and nothing else may follow")
		flag.Usage()
		os.Exit(2)
	}
	own, err := ownCache()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := serve(os.Stdin, os.Stdout, own, cache(shared)); err != nil {
		fmt.Fprintln(os.Stderr, "gocacheprog:", err)
		os.Exit(1)
	}
}

// serve answers the go command's requests from in on out until "close" or the end of in.
func serve(in io.Reader, out io.Writer, own, shared cache) error {
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	reply := func(r *response) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := reply(&response{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<16))
	for {
		var req request
		if err := dec.Decode(&req); err == io.EOF {
			own.trim()
			return nil
		} else if err != nil {
			return fmt.Errorf("reading a request: %v", err)
		}
		res := &response{ID: req.ID}
		switch req.Command {
		case "get":
			if path, outID, size, t, ok := own.get(req.ActionID); ok {
				used(path)
				res.OutputID, res.Size, res.Time, res.DiskPath = outID, size, &t, path
			} else if path, outID, size, t, ok := shared.get(req.ActionID); ok {
				res.OutputID, res.Size, res.Time, res.DiskPath = outID, size, &t, path
			} else {
				res.Miss = true
			}
		case "put":
			var body []byte
			if req.BodySize > 0 {
				var b64 string
				if err := dec.Decode(&b64); err != nil {
					return fmt.Errorf("reading the body of request %d: %v", req.ID, err)
				}
				var err error
				if body, err = base64.StdEncoding.DecodeString(b64); err != nil {
					return fmt.Errorf("the body of request %d: %v", req.ID, err)
				}
			}
			if int64(len(body)) != req.BodySize {
				res.Err = fmt.Sprintf("gocacheprog: request %d: a body of %d bytes, BodySize %d", req.ID, len(body), req.BodySize)
			} else if path, err := own.put(req.ActionID, req.OutputID, body); err != nil {
				res.Err = err.Error()
			} else {
				res.DiskPath = path
			}
		case "close":
			own.trim()
			return reply(res)
		default:
			res.Err = fmt.Sprintf("gocacheprog: unknown command %q", req.Command)
		}
		if err := reply(res); err != nil {
			return err
		}
	}
}
