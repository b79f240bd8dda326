package chart

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
)

// Interactive is a figure that renders as an HTML fragment drawn by echarts
// in the browser. [Histogram], [Lines], [Scatter] and [ECharts] are
// Interactive.
//
// The fragment is one <div class="backofflab-chart"> followed by one
// <script>; no <html>, no external URL. The div's id is
// "backofflab-chart-" + 12 hex digits of a hash of the options + "-" + the
// number of fragments with that hash made so far by the process, so a
// notebook run twice gives the same text. Until the script runs, the div
// holds a short note (shown where scripts are not trusted). The script
// loads echarts with the function of [LoaderJS], then draws in the first
// div with its id that has no data-backofflab attribute and sets that
// attribute to "drawn"; if echarts cannot be loaded, it sets "failed" and
// writes in the div that [StartCommand] installs the script.
type Interactive interface {
	// HTML returns the fragment: a <div> and the <script> that draws in it.
	HTML() (string, error)
}

// InNotebook reports whether the program runs inside a GoNB notebook cell,
// where the Show functions display figures. Elsewhere they do nothing.
func InNotebook() bool { return gonbui.IsNotebook }

// Show displays f inline in a GoNB notebook as a PNG image and waits until
// the notebook has received it. Outside a notebook it does nothing and
// returns nil (the figure is not even rendered).
func Show(f Figure) error {
	if !gonbui.IsNotebook {
		return nil
	}
	png, err := PNG(f)
	if err != nil {
		return err
	}
	gonbui.DisplayPNG(png)
	return flush()
}

// ShowSVG is like [Show] but displays the figure as SVG, which stays sharp
// when zoomed.
func ShowSVG(f Figure) error {
	if !gonbui.IsNotebook {
		return nil
	}
	svg, err := SVG(f)
	if err != nil {
		return err
	}
	gonbui.DisplaySVG(string(svg))
	return flush()
}

// ShowInteractive displays the HTML fragment of f inline in a GoNB notebook
// and waits until the notebook has received it. Outside a notebook it does
// nothing and returns nil.
func ShowInteractive(f Interactive) error {
	if !gonbui.IsNotebook {
		return nil
	}
	if f == nil {
		return errors.New("chart: ShowInteractive(nil)")
	}
	html, err := f.HTML()
	if err != nil {
		return err
	}
	gonbui.DisplayHTML(html)
	return flush()
}

// flush flushes the display pipe to GoNB and reports a broken connection.
func flush() error {
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return fmt.Errorf("chart: displaying in the notebook: %w", err)
	}
	return nil
}

// Save writes f as dir/name.png and dir/name.svg, creating dir if needed,
// and returns the two paths. The name must be a plain file name without
// extension, such as "waves-01-histogram".
func Save(f Figure, dir, name string) (pngPath, svgPath string, err error) {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", "", fmt.Errorf("chart: Save name must be a plain file name, got %q", name)
	}
	png, err := PNG(f)
	if err != nil {
		return "", "", err
	}
	svg, err := SVG(f)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("chart: Save: %w", err)
	}
	pngPath = filepath.Join(dir, name+".png")
	svgPath = filepath.Join(dir, name+".svg")
	if err := os.WriteFile(pngPath, png, 0o644); err != nil {
		return "", "", fmt.Errorf("chart: Save: %w", err)
	}
	if err := os.WriteFile(svgPath, svg, 0o644); err != nil {
		return "", "", fmt.Errorf("chart: Save: %w", err)
	}
	return pngPath, svgPath, nil
}
