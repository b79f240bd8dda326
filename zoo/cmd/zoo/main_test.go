package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONFieldsAndDeterminism(t *testing.T) {
	var a, b bytes.Buffer
	if err := run([]string{"--json", "--clients", "100"}, &a); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"--json", "--clients", "100"}, &b); err != nil {
		t.Fatal(err)
	}
	var rowsA, rowsB []map[string]any
	if err := json.Unmarshal(a.Bytes(), &rowsA); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &rowsB); err != nil {
		t.Fatal(err)
	}
	if len(rowsA) < 20 {
		t.Fatalf("%d rows, want one per library and setting", len(rowsA))
	}
	fields := []string{"name", "module", "version", "settings", "peak_per_10ms", "last_retry_ms", "gave_up", "seeded"}
	for i, r := range rowsA {
		if len(r) != len(fields) {
			t.Errorf("row %d has fields %v, want exactly %v", i, r, fields)
		}
		for _, f := range fields {
			if _, ok := r[f]; !ok {
				t.Errorf("row %d (%v) lacks %q", i, r["name"], f)
			}
		}
		if r["seeded"] == true {
			ja, _ := json.Marshal(r)
			jb, _ := json.Marshal(rowsB[i])
			if !bytes.Equal(ja, jb) {
				t.Errorf("seeded row differs between runs:\n%s\n%s", ja, jb)
			}
		}
	}
}

func TestTable(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"--clients", "10", "--outage", "2s"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "library") || !strings.Contains(out.String(), "go-retryablehttp") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--clients", "0"}, {"--clients", "100001"}, {"--outage", "0s"}, {"--outage", "2h"}, {"extra"}, {"--nope"},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

// --http runs the HTTP clients over loopback, the AWS SDK's SQS client
// among them, and prints one row each with seeded false.
func TestHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and about 2 s of real time")
	}
	var out bytes.Buffer
	if err := run([]string{"--http", "--json", "--clients", "10", "--outage", "300ms"}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	aws := 0
	for _, r := range rows {
		if r["seeded"] != false {
			t.Errorf("%v: seeded %v, want false over real sockets", r["name"], r["seeded"])
		}
		if r["name"] == "aws-sdk-go-v2 retry" {
			aws++
		}
	}
	if aws == 0 {
		t.Errorf("no AWS SDK row in %s", out.String())
	}
	for _, args := range [][]string{{"--http", "--clients", "1001"}, {"--http", "--outage", "2m"}} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}
