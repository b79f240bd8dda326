package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Builds of the same folder at the same time (each browser suite builds it)
// write each file whole: many writers of one file all succeed, a reader
// finds one writer's bytes in full, and no temporary file is left.
func TestWriteFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golab.js")
	contents := make([][]byte, 8)
	for i := range contents {
		contents[i] = bytes.Repeat([]byte(fmt.Sprintf("writer %d ", i)), 200_000)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*len(contents))
	for range 3 {
		for _, c := range contents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- writeFile(path, c)
			}()
		}
	}
	stop, read := make(chan bool), make(chan bool)
	go func() { // a reader meanwhile
		defer close(read)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if got, err := os.ReadFile(path); err == nil && !whole(got, contents) {
				t.Errorf("a reader found %d bytes that are no writer's whole content", len(got))
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-read
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !whole(got, contents) {
		t.Fatalf("after the writers: %d bytes, %v", len(got), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want golab.js alone", len(entries))
	}
	// Unchanged content is not written again.
	st, _ := os.Stat(path)
	if err := writeFile(path, got); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); !os.SameFile(st, st2) {
		t.Error("writing the same content replaced the file")
	}
}

func whole(got []byte, contents [][]byte) bool {
	for _, c := range contents {
		if bytes.Equal(got, c) {
			return true
		}
	}
	return false
}
