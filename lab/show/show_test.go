package show

import (
	"os"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/backofflab/backofflab/lab/table"
)

// inNotebook makes the test program look like a GoNB cell and returns the
// bundles it displays.
func inNotebook(t *testing.T) *[]bundle {
	t.Helper()
	var got []bundle
	oldDisplay, oldNotebook := display, gonbui.IsNotebook
	display = func(b bundle) error { got = append(got, b); return nil }
	gonbui.IsNotebook = true
	t.Cleanup(func() { display, gonbui.IsNotebook = oldDisplay, oldNotebook })
	return &got
}

func sample() table.Table {
	t := table.New("policy", "calls")
	t.Add("full", 480)
	return t
}

func TestTableInANotebookIsHTMLWithItsText(t *testing.T) {
	got := inNotebook(t)
	if err := Table(sample(), sample()); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 2 {
		t.Fatalf("displayed %d bundles, want one per table (2)", len(*got))
	}
	b := (*got)[0]
	if b[protocol.MIMETextPlain] != sample().String() {
		t.Errorf("text/plain is %q, want the table's text %q", b[protocol.MIMETextPlain], sample().String())
	}
	if b[protocol.MIMETextHTML] != sample().HTML() {
		t.Errorf("text/html is %q, want the table's HTML", b[protocol.MIMETextHTML])
	}
}

func TestTableElsewherePrintsText(t *testing.T) {
	if gonbui.IsNotebook {
		t.Skip("running inside a notebook")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	err = Table(sample(), sample())
	os.Stdout = old
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	buf := make([]byte, 1024)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if want := sample().String() + "\n" + sample().String(); b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}

func TestImagesAndHTMLOnlyInANotebook(t *testing.T) {
	if gonbui.IsNotebook {
		t.Skip("running inside a notebook")
	}
	for name, err := range map[string]error{"PNG": PNG(nil), "SVG": SVG(nil), "HTML": HTML("")} {
		if err != nil {
			t.Errorf("%s outside a notebook: %v, want nil (nothing shown)", name, err)
		}
	}
	got := inNotebook(t)
	if err := PNG([]byte{0x89}); err != nil {
		t.Fatal(err)
	}
	if err := SVG([]byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	if err := HTML("<p>x</p>"); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 3 {
		t.Fatalf("displayed %d bundles, want 3", len(*got))
	}
	if _, ok := (*got)[0][protocol.MIMEImagePNG].([]byte); !ok {
		t.Errorf("PNG bundle %v has no image/png bytes", (*got)[0])
	}
	if h := (*got)[1][protocol.MIMETextHTML]; h != "<div><svg/></div>" {
		t.Errorf("SVG bundle's HTML is %q, want the SVG in a div", h)
	}
	if h := (*got)[2][protocol.MIMETextHTML]; h != "<p>x</p>" {
		t.Errorf("HTML bundle is %q", h)
	}
	for name, err := range map[string]error{"PNG": PNG(nil), "SVG": SVG(nil)} {
		if err == nil || !strings.Contains(err.Error(), "no bytes") {
			t.Errorf("%s of nothing in a notebook: %v, want an error", name, err)
		}
	}
}
