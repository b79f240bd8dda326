package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/klauspost/compress/zstd"
)

// zstdCache keeps what encoder made of each file, by the file's content
// hash, in the user's cache folder (…/backofflab/wasm-zstd-best-64m-…), as
// Go's build cache keeps compiled packages: a checkout that builds files
// another checkout built, or a folder built afresh, copies them rather than
// compressing them again (about 40 CPU-s at zstd's best level). An entry is
// used only if it decompresses to the content its name hashes; one not used
// for a week is removed. With no cache folder (no HOME), every file is
// compressed.
type zstdCache struct{ dir string }

// zstdCacheUnused is how long an entry may go unused before trim removes it.
const zstdCacheUnused = 7 * 24 * time.Hour

func openZstdCache() zstdCache {
	base, err := os.UserCacheDir()
	if err != nil {
		return zstdCache{}
	}
	// The folder's name says how its entries were compressed: another
	// encoder setting, or another version of the encoder, another folder.
	dir := filepath.Join(base, "backofflab", "wasm-zstd-best-64m-"+encoderVersion())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return zstdCache{}
	}
	return zstdCache{dir: dir}
}

// encoderVersion is the version of github.com/klauspost/compress built in.
func encoderVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/klauspost/compress" {
				return d.Version
			}
		}
	}
	return "unknown"
}

var decoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderConcurrency(1))

// compress returns data compressed by encoder; name is hashName(data, ext).
func (c zstdCache) compress(data []byte, name string) []byte {
	if c.dir == "" {
		return encoder.EncodeAll(data, nil)
	}
	path := filepath.Join(c.dir, name+".zst")
	if body, err := os.ReadFile(path); err == nil {
		if plain, err := decoder.DecodeAll(body, nil); err == nil && bytes.Equal(plain, data) {
			now := time.Now()
			os.Chtimes(path, now, now) // used: kept by trim
			return body
		}
	}
	body := encoder.EncodeAll(data, nil)
	writeFile(path, body) // a cache: a failed write costs the next build time, nothing else
	return body
}

// trim removes the entries no build has used for zstdCacheUnused.
func (c zstdCache) trim() {
	if c.dir == "" {
		return
	}
	entries, _ := os.ReadDir(c.dir)
	old := time.Now().Add(-zstdCacheUnused)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() && info.ModTime().Before(old) {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
}
