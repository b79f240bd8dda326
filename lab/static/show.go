package static

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/show"
)

// Show displays f inline in a GoNB notebook as a PNG image and waits until
// the notebook has received it. Outside a notebook it does nothing and
// returns nil (the figure is not even rendered).
func Show(f figure.Figure) error {
	if !show.InNotebook() {
		return nil
	}
	png, err := PNG(f)
	if err != nil {
		return err
	}
	return show.PNG(png)
}

// ShowSVG is like [Show] but displays the figure as SVG, which stays sharp
// when zoomed.
func ShowSVG(f figure.Figure) error {
	if !show.InNotebook() {
		return nil
	}
	svg, err := SVG(f)
	if err != nil {
		return err
	}
	return show.SVG(svg)
}

// Save writes f as dir/name.png and dir/name.svg, creating dir if needed,
// and returns the two paths. The name must be a plain file name without
// extension, such as "waves-01-histogram".
func Save(f figure.Figure, dir, name string) (pngPath, svgPath string, err error) {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", "", fmt.Errorf("static: Save name must be a plain file name, got %q", name)
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
		return "", "", fmt.Errorf("static: Save: %w", err)
	}
	pngPath = filepath.Join(dir, name+".png")
	svgPath = filepath.Join(dir, name+".svg")
	if err := os.WriteFile(pngPath, png, 0o644); err != nil {
		return "", "", fmt.Errorf("static: Save: %w", err)
	}
	if err := os.WriteFile(svgPath, svg, 0o644); err != nil {
		return "", "", fmt.Errorf("static: Save: %w", err)
	}
	return pngPath, svgPath, nil
}
