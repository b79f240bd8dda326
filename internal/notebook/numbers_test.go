package notebook

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestProseNumbersAsWritten(t *testing.T) {
	md := "## 2. The cap\n\n" +
		"1. Exponential backoff takes 25.6 s, about 2 270 calls, 8 % more; the peak is 600 000/s.\n" +
		"The tenth attempt comes at 8m32s, the last probe at 1 min 6 s, within 3.25× or 2.5625 times.\n" +
		"Brooker's post (AWS Architecture Blog, 2015), lesson 07 and **06 · In Phase**, `base<<3`, $2^{31}$,\n" +
		"RFC 9110, go-retryablehttp v0.7.8, k8s, a 30-second outage, [link](../01-waves.ipynb), 1,490 calls,\n" +
		"attempts at 0.1, 0.3 and 0.7 s, between 3 and 3.5 s, a 503 Service Unavailable, −0.49 s.\n"
	type want struct {
		text   string
		value  float64
		unit   string
		places int
		hedged bool
	}
	wants := []want{
		{"25.6 s", 25.6, "s", 1, false},
		{"2 270", 2270, "", 0, true},
		{"8 %", 8, "%", 0, false},
		{"600 000/s", 600000, "/s", 0, false},
		{"8m32s", 512, "s", 0, false},
		{"1 min", 1, "min", 0, false},
		{"6 s", 6, "s", 0, false},
		{"3.25×", 3.25, "×", 2, false},
		{"2.5625", 2.5625, "", 4, false},
		{"30-second", 30, "s", 0, false},
		{"1,490", 1490, "", 0, false},
		{"0.1", 0.1, "s", 1, false},
		{"0.3", 0.3, "s", 1, false},
		{"0.7 s", 0.7, "s", 1, false},
		{"3", 3, "s", 0, false},
		{"3.5 s", 3.5, "s", 1, false},
		{"−0.49 s", -0.49, "s", 2, false},
	}
	got := ProseNumbers(4, md)
	if len(got) != len(wants) {
		var texts []string
		for _, p := range got {
			texts = append(texts, p.Text)
		}
		t.Fatalf("found %d numbers %q, want %d", len(got), texts, len(wants))
	}
	for i, w := range wants {
		p := got[i]
		if p.Text != w.text || p.Value != w.value || p.Unit != w.unit || p.Places != w.places || p.Hedged != w.hedged || p.Cell != 4 {
			t.Errorf("number %d = %+v, want %+v in cell 4", i, p, w)
		}
	}
	if c := got[0].Context; !strings.Contains(c, "takes 25.6 s, about") {
		t.Errorf("context %q does not hold the words around 25.6 s", c)
	}
}

func TestOutputNumbersSideBySide(t *testing.T) {
	c := Cell{CellType: "code", Outputs: []Output{
		{OutputType: "stream", Name: "stdout", Text: "peak per [10ms 100ms 1s]: 223 993 1000\nsends at [0s 100ms 1m4s] v5.0.3 order-7f3a 2.62×\n"},
		{OutputType: "display_data", Data: map[string]Text{"text/html": `<div class="backofflab-chart">12345</div>`, "text/plain": "12345"}},
		{OutputType: "display_data", Data: map[string]Text{"text/html": `<div class="backofflab-table"><td>7.5</td></div>`, "text/plain": "7.5\n"}},
		{OutputType: "execute_result", Data: map[string]Text{"text/plain": "-0.31"}},
	}}
	var got []string
	for _, o := range OutputNumbers(3, c) {
		got = append(got, o.Text)
		if o.Cell != 3 {
			t.Errorf("%s: cell %d, want 3", o.Text, o.Cell)
		}
	}
	want := []string{"10ms", "100ms", "1s", "223", "993", "1000", "0s", "100ms", "1m4s", "2.62", "7.5", "-0.31"}
	if !slices.Equal(got, want) {
		t.Errorf("output numbers %q, want %q (a chart's data, a version and an identifier left out; a table's text kept)", got, want)
	}
}

func TestProseNumberMatches(t *testing.T) {
	p := func(md string) ProseNumber {
		t.Helper()
		ps := ProseNumbers(1, md)
		if len(ps) != 1 {
			t.Fatalf("%q: %d numbers, want 1", md, len(ps))
		}
		return ps[0]
	}
	for _, c := range []struct {
		prose  string
		output float64
		want   bool
	}{
		{"takes 25.6 s", 25.62, true},  // rounded to the places written
		{"takes 25.6 s", 25.66, false}, // 25.7
		{"finishes in 6.0 s", 6.08, false},
		{"finishes in 4.5 s", 4.52, true},
		{"4.52 s", 4.5, false}, // more places than the output has
		{"idle 68 %", 68.2, true},
		{"about 2 270 calls", 2266.5, true}, // hedged: read to the tens
		{"2 270 calls", 2266.5, false},      // not hedged: exact
		{"about 900/s", 925, true},
		{"900/s", 925, false},
		{"0.31 s sooner", -0.31, true}, // signs are ignored
		{"70 ms ahead", 0.07, true},    // printed in seconds
		{"after 1.5 s", 1500, true},    // printed in milliseconds
		{"a third", 3, false},
	} {
		ps := ProseNumbers(1, c.prose)
		if len(ps) == 0 {
			if c.want {
				t.Errorf("%q: no number found", c.prose)
			}
			continue
		}
		if got := p(c.prose).matchesOutput(OutputNumber{Value: c.output}); got != c.want {
			t.Errorf("%q matches %v = %v, want %v", c.prose, c.output, got, c.want)
		}
	}
}

// numbersNotebook has a number of each Where: 3000 beside its output, 925 printed in another
// section, 1500 only in code, 12.2 nowhere; 5 s matches a part of a composite duration.
func numbersNotebook() *Notebook {
	out := func(s string) []Output { return []Output{{OutputType: "stream", Name: "stdout", Text: Text(s)}} }
	return &Notebook{Cells: []Cell{
		{CellType: "markdown", Source: "## One\n\nIntro."},
		{CellType: "code", Source: "%%\nfmt.Println(run())", Outputs: out("peak 3000/s, last at 1m5s\n")},
		{CellType: "markdown", Source: "The peak is 3000/s, the last retry at 1 min 5 s."},
		{CellType: "markdown", Source: "## Two\n\nA capacity of 1500/s, 925/s with jitter, 12.2 % behind."},
		{CellType: "code", Source: "%%\nconst capacity = 1500.0\nwait := 200 * time.Millisecond", Outputs: out("fits\n")},
		{CellType: "markdown", Source: "## Three"},
		{CellType: "code", Source: "%%", Outputs: out("jittered peak 925/s\n")},
	}}
}

func TestCheckNumbersSaysWhere(t *testing.T) {
	checks := CheckNumbers(numbersNotebook())
	want := map[string]Where{"3000/s": Beside, "1 min": Beside, "5 s": Beside, "1500/s": InCode, "925/s": Elsewhere, "12.2 %": Nowhere}
	if len(checks) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(checks), len(want), checks)
	}
	for _, ch := range checks {
		w, ok := want[ch.Text]
		if !ok || ch.Where != w {
			t.Errorf("%q in cell %d: %v, want %v", ch.Text, ch.Cell, ch.Where, w)
		}
		if ch.Text == "925/s" && (len(ch.Matches) != 1 || ch.Matches[0].Cell != 7) {
			t.Errorf("925/s: matches %+v, want the output of cell 7", ch.Matches)
		}
		if ch.Text == "3000/s" && (ch.Cell != 3 || len(ch.Matches) == 0 || ch.Matches[0].Cell != 2) {
			t.Errorf("3000/s in cell %d: matches %+v, want cell 3 read against cell 2", ch.Cell, ch.Matches)
		}
	}
}

func TestWriteNumberReport(t *testing.T) {
	var b bytes.Buffer
	count, err := WriteNumberReport(&b, "x.ipynb", CheckNumbers(numbersNotebook()), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := [4]int{3, 1, 1, 1}; count != want {
		t.Errorf("counts %v, want %v", count, want)
	}
	r := b.String()
	for _, s := range []string{`x.ipynb cell 4: "12.2 %": nowhere`, "prose: …capacity of 1500/s, 925/s with jitter, 12.2 % behind.…",
		`x.ipynb cell 4: "925/s": elsewhere in the notebook`, "matches cell 7: 925   (jittered peak 925/s)", `"1500/s": in code only`} {
		if !strings.Contains(r, s) {
			t.Errorf("report lacks %q:\n%s", s, r)
		}
	}
	if strings.Contains(r, `"3000/s"`) {
		t.Errorf("report lists a number beside its output without -all:\n%s", r)
	}
}

// A duration an output prints matches only a prose duration, compared in seconds.
func TestProseNumberMatchesDurations(t *testing.T) {
	outs := OutputNumbers(1, Cell{CellType: "code", Outputs: []Output{{OutputType: "stream", Name: "stdout", Text: "5s 1m6s 1.2s 100ms\n"}}})
	if len(outs) != 4 {
		t.Fatalf("%d output numbers, want 4", len(outs))
	}
	for _, c := range []struct {
		prose string
		want  []bool // against 5s, 1m6s, 1.2s, 100ms
	}{
		{"5 ms apart", []bool{false, false, false, false}},
		{"5 s later", []bool{true, false, false, false}},
		{"at 5 %", []bool{false, false, false, false}},
		{"1200 requests", []bool{false, false, false, false}},
		{"1.2 s", []bool{false, false, true, false}},
		{"0.1 s", []bool{false, false, false, true}},
		{"100 ms", []bool{false, false, false, true}},
		{"1 min", []bool{false, true, false, false}},
		{"6 s", []bool{false, true, false, false}},
		{"66 s", []bool{false, true, false, false}},
	} {
		p := ProseNumbers(1, c.prose)[0]
		for i, o := range outs {
			if got := p.matchesOutput(o); got != c.want[i] {
				t.Errorf("%q matches %s = %v, want %v", c.prose, o.Text, got, c.want[i])
			}
		}
	}
}

// A number without a unit in a list takes the list's unit, from after it or from before it.
func TestProseNumbersTakeTheListsUnit(t *testing.T) {
	var got []string
	for _, p := range ProseNumbers(1, "all 60 wait 100 ms, then 200, 400, 800, 1600: waves at 1, 2, 4 and 8 s; 3 clients") {
		got = append(got, p.Text+"="+p.Unit)
	}
	want := []string{"60=", "100 ms=ms", "200=ms", "400=ms", "800=ms", "1600=ms", "1=s", "2=s", "4=s", "8 s=s", "3="}
	if !slices.Equal(got, want) {
		t.Errorf("numbers %q, want %q", got, want)
	}
}

// A question's numbers are a guess's options, not claims.
func TestProseNumbersLeaveOutQuestions(t *testing.T) {
	var got []string
	for _, p := range ProseNumbers(1, "Guess first: is its later peak nearer 300, 30 or 3? It is 31. In 3.5 s, is it 2? No: 4.") {
		got = append(got, p.Text)
	}
	if want := []string{"31", "4"}; !slices.Equal(got, want) {
		t.Errorf("numbers %q, want %q", got, want)
	}
}
