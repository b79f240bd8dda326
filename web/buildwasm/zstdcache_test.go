package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file compressed once comes from the cache the next time, whole; a
// damaged entry is not used but compressed again; trim removes only the
// entries unused for a week.
func TestZstdCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	c := openZstdCache()
	if c.dir == "" {
		t.Fatal("no cache folder")
	}
	data := bytes.Repeat([]byte("the same runtime calls, the same type descriptors "), 50_000)
	name := hashName(data, ".a")
	first := c.compress(data, name)
	entry := filepath.Join(c.dir, name+".zst")
	cached, err := os.ReadFile(entry)
	if err != nil || !bytes.Equal(cached, first) {
		t.Fatalf("after the first compression the cache holds %d bytes (%v), want the %d compressed", len(cached), err, len(first))
	}
	if plain, err := decoder.DecodeAll(first, nil); err != nil || !bytes.Equal(plain, data) {
		t.Fatalf("the compressed file does not decompress to the data: %v", err)
	}

	// Taken from the cache: an entry of other bytes with the same content
	// (two zstd frames, not one) is returned as it is.
	other := encoder.EncodeAll(data[:len(data)/2], nil)
	other = append(other, encoder.EncodeAll(data[len(data)/2:], nil)...) // two frames: the same content
	if err := os.WriteFile(entry, other, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.compress(data, name); !bytes.Equal(got, other) {
		t.Errorf("the second compression did not come from the cache (%d bytes, the entry %d)", len(got), len(other))
	}

	// Damaged: cut short, so it no longer decompresses to the data.
	if err := os.WriteFile(entry, other[:len(other)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.compress(data, name); !bytes.Equal(got, first) {
		t.Errorf("a damaged entry gave %d bytes, want the data compressed afresh (%d)", len(got), len(first))
	}
	if fixed, _ := os.ReadFile(entry); !bytes.Equal(fixed, first) {
		t.Error("the damaged entry was not replaced")
	}

	// Trim: an entry unused for over a week goes, a used one stays.
	stale := filepath.Join(c.dir, hashName([]byte("old"), ".a")+".zst")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-zstdCacheUnused - time.Hour)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	c.trim()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("trim kept an entry unused for over a week (%v)", err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Errorf("trim removed an entry just used: %v", err)
	}
	if !strings.Contains(filepath.Base(c.dir), "wasm-zstd-best-64m-") {
		t.Errorf("the cache folder %s does not say how its entries were compressed", c.dir)
	}
}
