package layered

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of the model of two layers, reference.go: the outer layer that backs off above an inner one that retries at once (lesson 08). Print it in a cell with fmt.Print(layered.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/layered/reference.go", Text: referenceText}
}
