//go:debug randseednop=0

// Command zoo runs the retry libraries that Go services use through the same
// synchronised failure (see package zoo) and prints one row per library and
// setting: the fullest 10 ms of retries, when the last retry arrived, and how
// many clients gave up.
//
// Usage, in the zoo folder:
//
//	go run ./cmd/zoo [--json] [--http] [--clients N] [--outage D] [--seed S]
//
// --json prints the table as a JSON array, one object per library and setting,
// with the fields name, module, version, settings, peak_per_10ms,
// last_retry_ms, gave_up and seeded.
//
// --http runs the HTTP clients instead (go-retryablehttp, failsafehttp, an AWS
// SDK service client, this repository's retry.Transport) over real loopback
// sockets, in real time: by default 200 clients through a 3 s outage, which
// takes about half a minute. The network's noise moves every figure by a few
// milliseconds from run to run, so seeded is false for every row.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/backofflab/backofflab/zoo"
)

// row is one line of --json output.
type row struct {
	Name        string `json:"name"`
	Module      string `json:"module"`
	Version     string `json:"version"`
	Settings    string `json:"settings"`
	PeakPer10ms int    `json:"peak_per_10ms"`
	LastRetryMs int64  `json:"last_retry_ms"`
	GaveUp      int    `json:"gave_up"`
	Seeded      bool   `json:"seeded"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "zoo:", err)
		os.Exit(2)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("zoo", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	overHTTP := fs.Bool("http", false, "run the HTTP clients over loopback sockets, in real time")
	clients := fs.Int("clients", 1000, fmt.Sprintf("clients that fail together at t = 0, 1 to %d (--http: 1 to %d, default %d)", zoo.MaxClients, zoo.MaxHTTPClients, httpClients))
	outage := fs.Duration("outage", 10*time.Second, fmt.Sprintf("how long the dependency fails every request, 0 to %v (--http: to %v, default %v)", zoo.MaxOutage, zoo.MaxHTTPOutage, httpOutage))
	seed := fs.Uint64("seed", 0, "seed for the libraries that can be seeded (0: the lab's default seed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *overHTTP {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["clients"] {
			*clients = httpClients
		}
		if !set["outage"] {
			*outage = httpOutage
		}
		return runHTTP(w, *clients, *outage, *seed, *asJSON)
	}
	if *clients < 1 || *clients > zoo.MaxClients {
		return fmt.Errorf("--clients %d: want 1 to %d", *clients, zoo.MaxClients)
	}
	if *outage <= 0 || *outage > zoo.MaxOutage {
		return fmt.Errorf("--outage %v: want more than 0 and at most %v", *outage, zoo.MaxOutage)
	}
	results, err := zoo.RunAll(append(zoo.Entries(), zoo.Fixes()...), zoo.Storm{Clients: *clients, Outage: *outage, Seed: *seed})
	if err != nil {
		return err
	}
	if *asJSON {
		rows := make([]row, len(results))
		for i, r := range results {
			rows[i] = row{r.Name, r.Module, r.Version, r.Settings, r.Peak, r.LastRetry.Milliseconds(), r.GaveUp, r.Seeded}
		}
		return encode(w, rows)
	}
	return zoo.WriteTable(w, results)
}

// The loopback storm's defaults, as in lesson 13.
const (
	httpClients = 200
	httpOutage  = 3 * time.Second
)

// runHTTP runs every HTTP client over loopback and prints one row each.
func runHTTP(w io.Writer, clients int, outage time.Duration, seed uint64, asJSON bool) error {
	if clients < 1 || clients > zoo.MaxHTTPClients {
		return fmt.Errorf("--clients %d: want 1 to %d with --http", clients, zoo.MaxHTTPClients)
	}
	if outage <= 0 || outage > zoo.MaxHTTPOutage {
		return fmt.Errorf("--outage %v: want more than 0 and at most %v with --http", outage, zoo.MaxHTTPOutage)
	}
	var results []zoo.HTTPResult
	for _, c := range zoo.HTTPClients() {
		r, err := zoo.RunHTTP(context.Background(), c, clients, outage, seed)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if !asJSON {
		return zoo.WriteHTTP(w, results)
	}
	rows := make([]row, len(results))
	for i, r := range results {
		var last time.Duration
		if n := len(r.Retries); n > 0 {
			last = r.Retries[n-1]
		}
		rows[i] = row{r.Name, r.Module, r.Version, r.Settings, r.Peak, last.Milliseconds(), clients - r.Served, false}
	}
	return encode(w, rows)
}

// encode writes rows as an indented JSON array.
func encode(w io.Writer, rows []row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}
