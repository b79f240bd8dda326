package interactive

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The browser side of the interactive figures is in web/: chart.html and
// explorable.html are the fragments, html/template templates that include
// the scripts (loader.js, claim.js, zoom.js, chart.js, explorable.js) by file name.
// Every value reaches a fragment through a template action, escaped for
// its context by html/template: JSON in the scripts.

//go:embed web/*.html web/*.js
var web embed.FS

//go:embed web/loader.js
var loaderJS string

// fragments holds the templates of web/.
var fragments = template.Must(template.ParseFS(web, "web/*.html", "web/*.js"))

const helpText = "Interactive chart not drawn: the echarts script is not served by this Jupyter server. " +
	"Run " + StartCommand + " in the Backoff Lab folder (it installs echarts where Jupyter serves it), " +
	"then reload this page. Static figures do not need it."

// assetsJS is the variable assets that web/loader.js reads.
type assetsJS struct {
	Paths []string `json:"paths"`
	Site  string   `json:"site"`
}

// fragmentData is what the templates of web/ fill in.
type fragmentData struct {
	ID     string
	Height int // chart.html: pixels
	// Option (chart.html) is a json.RawMessage, or a template.JS where
	// withFunctions has turned strings marked as functions into code.
	Option any
	Spec   template.JS // explorable.html: JSON from explorableSpec.encode
	Help   string
	Assets assetsJS
}

// render executes the template name of web/ with d.
func render(name string, d fragmentData) (string, error) {
	d.Help = helpText
	d.Assets = assetsJS{Paths: AssetPaths(), Site: SiteAssetPath}
	var b strings.Builder
	if err := fragments.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("interactive: rendering %s: %w", name, err)
	}
	return b.String(), nil
}

// chartFragment renders the HTML of one chart: option (see
// [fragmentData]) drawn height pixels high (zero means 400), in a div
// whose id hashes the height and raw, the option's JSON.
func chartFragment(option any, raw json.RawMessage, height int) (string, error) {
	if height == 0 {
		height = 400
	}
	id := fragmentID("backofflab-chart-", strconv.Itoa(height)+"\n"+string(raw))
	return render("chart.html", fragmentData{ID: id, Height: height, Option: option})
}

// funcString matches a JSON string that go-echarts marks as JavaScript
// source (types.FuncStr, from opts.FuncOpts): "__f__source__f__".
var funcString = regexp.MustCompile(`"__f__((?:[^"\\]|\\.)*)__f__"`)

// withFunctions returns the JSON raw as a script value: raw itself (a
// json.RawMessage, escaped by html/template), or, where it holds strings
// marked as functions, a template.JS with those strings decoded into
// code. A function that could end the script element is an error.
func withFunctions(raw json.RawMessage) (any, error) {
	if !funcString.Match(raw) {
		return raw, nil
	}
	var err error
	js := funcString.ReplaceAllFunc(raw, func(m []byte) []byte {
		var src string
		quoted := append([]byte{'"'}, m[len(`"__f__`):len(m)-len(`__f__"`)]...)
		if e := json.Unmarshal(append(quoted, '"'), &src); e != nil && err == nil {
			err = fmt.Errorf("interactive: decoding an echarts function: %w", e)
		}
		if lower := strings.ToLower(src); (strings.Contains(lower, "</script") || strings.Contains(lower, "<!--")) && err == nil {
			err = fmt.Errorf("interactive: an echarts function holds </script or <!--, which would end the fragment's script: %.60q", src)
		}
		return []byte(src)
	})
	if err != nil {
		return nil, err
	}
	// The rest of raw is JSON from encoding/json, which escapes <, > and &.
	return template.JS(js), nil
}

// idCounts counts, per content hash, the fragments made by this process,
// so that identical charts in one notebook cell still get distinct ids
// while every id stays the same from run to run.
var idCounts = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// fragmentID returns prefix + 12 hex digits of a hash of content + "-" +
// the number of fragments with that hash made so far by the process.
func fragmentID(prefix, content string) string {
	sum := sha256.Sum256([]byte(content))
	hash := hex.EncodeToString(sum[:6])
	idCounts.Lock()
	idCounts.n[hash]++
	n := idCounts.n[hash]
	idCounts.Unlock()
	return prefix + hash + "-" + strconv.Itoa(n)
}

// compactJSON returns raw without insignificant white space.
func compactJSON(raw []byte) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
