package interactive

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/figure/figuretest"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// hostile are titles and labels that would break a fragment escaped by
// hand: quotes, the end of the script element, an HTML comment, template
// delimiters, backslashes and the line separators JavaScript strings once
// could not hold.
var hostile = []string{
	`say "hi" and 'bye'`,
	`a</script><script>window.pwned = 1</script>`,
	`</SCRIPT ><!-- <script>`,
	`{{.ID}} $ID $OPTION \" \\ \u0000`,
	"Ünïcödé ✓ 日本語 🚀 \u2028 \u2029",
	`<b>&amp;</b> ]]> -->`,
}

// checkScript checks that html holds exactly one script element and no
// HTML comment, so nothing in it can end the script early.
func checkScript(t *testing.T, what, html string) {
	t.Helper()
	lower := strings.ToLower(html)
	if strings.Count(lower, "<script") != 1 || strings.Count(lower, "</script") != 1 {
		t.Errorf("%s: %d <script and %d </script, want one each", what, strings.Count(lower, "<script"), strings.Count(lower, "</script"))
	}
	if strings.Contains(html, "<!--") {
		t.Errorf("%s: fragment holds <!--", what)
	}
	if !utf8.ValidString(html) || strings.ContainsAny(html, "\u2028\u2029") {
		t.Errorf("%s: fragment holds invalid UTF-8 or a raw line separator", what)
	}
}

func TestHostileTitlesStayText(t *testing.T) {
	for _, title := range hostile {
		figures := map[string]figure.Figure{
			"histogram": figure.Histogram{Title: title, XLabel: title, Slot: time.Second, Counts: []float64{1, 2}, HLines: []figure.HLine{{Y: 1, Label: title}}},
			"lines":     figure.Lines{Title: title, Series: []figure.Series{{Name: title, X: []float64{1, 2}, Y: []float64{3, 4}}}},
			"scatter":   figure.Scatter{Title: title, Series: []figure.Series{{Name: title, X: []float64{1, 2}, Y: []float64{3, 4}}}},
			"echarts":   ECharts{Chart: titled(title)},
		}
		for name, f := range figures {
			html, err := HTML(f)
			if err != nil {
				t.Fatalf("%s %q: %v", name, title, err)
			}
			checkScript(t, name, html)
			o := optionOf(t, html)
			got := o["title"]
			if m, ok := got.([]any); ok { // go-echarts sends a list of titles
				got = m[0]
			}
			if text := got.(map[string]any)["text"]; text != title {
				t.Errorf("%s: title %q came back as %q", name, title, text)
			}
		}

		e := twoFrames()
		e.Controls[0].Label = title
		e.Controls[0].Values[0] = title
		e.Frames[1].Readout = title
		html, err := HTML(e)
		if err != nil {
			t.Fatal(err)
		}
		checkScript(t, "explorable", html)
		spec := specOf(t, html)
		c := spec["controls"].([]any)[0].(map[string]any)
		if c["label"] != title || c["values"].([]any)[0] != title || spec["readouts"].([]any)[1] != title {
			t.Errorf("explorable: %q came back as %v and %v", title, c, spec["readouts"])
		}
	}
}

func titled(title string) *charts.Line {
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: title}))
	line.SetXAxis([]string{"a", "b"}).AddSeries("s", []opts.LineData{{Value: 1}, {Value: 2}})
	return line
}

// FuzzFragmentTitle checks that no title ends the script of a fragment or
// fails to come back as the chart's title.
func FuzzFragmentTitle(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		html, err := HTML(figure.Histogram{Title: title, Slot: time.Second, Counts: []float64{1}})
		if err != nil {
			t.Fatal(err)
		}
		checkScript(t, "histogram", html)
		got := optionOf(t, html)["title"].(map[string]any)["text"]
		if utf8.ValidString(title) && title != "" && got != title {
			t.Errorf("title %q came back as %q", title, got)
		}
	})
}

// go-echarts marks JavaScript functions in its options; they reach the page
// as code, and one that would end the script element is an error.
func TestEChartsFunctionsStayCode(t *testing.T) {
	line := titled("functions")
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true),
		Formatter: opts.FuncOpts(`function (p) { return p.value < 2 ? "low & \"small\"" : 'high'; }`)}))
	html, err := HTML(ECharts{Chart: line})
	if err != nil {
		t.Fatal(err)
	}
	want := `"formatter":function (p) { return p.value < 2 ? "low & \"small\"" : 'high'; }`
	if !strings.Contains(html, want) {
		t.Errorf("fragment lacks the formatter as code %s", want)
	}
	checkScript(t, "echarts", html)

	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Formatter: opts.FuncOpts(`function () { return "</script>"; }`)}))
	if _, err := HTML(ECharts{Chart: line}); err == nil || !strings.Contains(err.Error(), "</script") {
		t.Errorf("a function holding </script>: error %v, want one naming </script", err)
	}
}

// Every script of web/ is in the fragments, and the loader the fragments
// embed is the one LoaderJS returns.
func TestFragmentsIncludeEveryScript(t *testing.T) {
	scripts, err := fs.Glob(web, "web/*.js")
	if err != nil || len(scripts) != 5 {
		t.Fatalf("web/*.js = %v, %v; want loader, claim, zoom, chart and explorable", scripts, err)
	}
	chart, err := HTML(figuretest.Histogram())
	if err != nil {
		t.Fatal(err)
	}
	explorable, err := HTML(twoFrames())
	if err != nil {
		t.Fatal(err)
	}
	both := chart + explorable
	for _, s := range scripts {
		name := strings.TrimPrefix(s, "web/")
		if fragments.Lookup(name) == nil {
			t.Errorf("%s is not a template", name)
		}
		src, _ := web.ReadFile(s)
		// A line of code of each file (the first that is not a comment)
		// appears in a fragment.
		for _, line := range strings.Split(string(src), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "//") && !strings.HasPrefix(line, "/*") {
				if !strings.Contains(both, line) {
					t.Errorf("no fragment holds %s's line %q", name, line)
				}
				break
			}
		}
	}
	if !strings.Contains(LoaderJS(), "function backofflabLoadECharts(done, fail) {") {
		t.Errorf("LoaderJS() = %.80q…", LoaderJS())
	}
	var assets assetsJS
	_, rest, _ := strings.Cut(chart, "var assets = ")
	js, _, _ := strings.Cut(rest, ";\n")
	if err := json.Unmarshal([]byte(js), &assets); err != nil || strings.Join(assets.Paths, " ") != strings.Join(AssetPaths(), " ") || assets.Site != SiteAssetPath {
		t.Errorf("assets = %s (%v), want AssetPaths() and SiteAssetPath", js, err)
	}
}
