// Package show is the lessons' notebook runtime: it displays what the lab
// makes (tables, the renderers' images and HTML, progress bars) inline in a
// GoNB notebook, and keeps lesson code runnable anywhere else.
//
// In a notebook, [Table] displays an HTML table with its aligned text beside
// it (a display bundle with text/html and text/plain, so that a front end,
// a saved notebook and a diff each find the form they read), and [PNG],
// [SVG] and [HTML] display what a renderer made; each waits until the
// notebook has received it, so output keeps the order of the calls.
// Outside a notebook (the command line, a test, `go run`) [Table] prints the
// aligned text to standard output and the others do nothing.
//
// The package draws nothing itself and links no renderer: a cell that only
// prints numbers and tables links this package, lab/table and GoNB's small
// gonbui, not gonum/plot or go-echarts. Figures are drawn by lab/static
// (PNG and SVG, with gonum/plot) and lab/interactive (HTML, with
// go-echarts), whose Show functions call this package.
package show

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/backofflab/backofflab/lab/table"
)

// InNotebook reports whether the program runs inside a GoNB notebook cell,
// where this package displays; elsewhere only [Table] shows anything.
func InNotebook() bool { return gonbui.IsNotebook }

// bundle is one display: its forms by MIME type.
type bundle map[protocol.MIMEType]any

// display sends b to the notebook and waits until the notebook has it.
// Tests replace it.
var display = func(b bundle) error {
	gonbui.SendData(&protocol.DisplayData{Data: b})
	gonbui.Sync()
	if err := gonbui.Error(); err != nil {
		return fmt.Errorf("show: displaying in the notebook: %w", err)
	}
	return nil
}

// Table displays each table: in a notebook, as an HTML table with its
// aligned text as the plain-text form; elsewhere, as aligned text on
// standard output, a blank line between two tables.
func Table(ts ...table.Table) error {
	if !gonbui.IsNotebook {
		var b strings.Builder
		for i, t := range ts {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(t.String())
		}
		_, err := os.Stdout.WriteString(b.String())
		return err
	}
	for _, t := range ts {
		if err := display(bundle{protocol.MIMETextHTML: t.HTML(), protocol.MIMETextPlain: t.String()}); err != nil {
			return err
		}
	}
	return nil
}

// PNG displays a PNG image in a notebook; elsewhere it does nothing.
func PNG(png []byte) error {
	if !gonbui.IsNotebook {
		return nil
	}
	if len(png) == 0 {
		return errors.New("show: PNG of no bytes")
	}
	return display(bundle{protocol.MIMEImagePNG: png})
}

// SVG displays an SVG image in a notebook, inside a <div> of HTML as GoNB
// does (an image/svg+xml output is lost when Jupyter converts a notebook to
// HTML); elsewhere it does nothing.
func SVG(svg []byte) error {
	if !gonbui.IsNotebook {
		return nil
	}
	if len(svg) == 0 {
		return errors.New("show: SVG of no bytes")
	}
	return display(bundle{protocol.MIMETextHTML: "<div>" + string(svg) + "</div>"})
}

// HTML displays an HTML fragment in a notebook; elsewhere it does nothing.
func HTML(html string) error {
	if !gonbui.IsNotebook {
		return nil
	}
	return display(bundle{protocol.MIMETextHTML: html})
}
