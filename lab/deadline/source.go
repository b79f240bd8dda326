package deadline

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the model's source, reference.go: Run, a request's life
// attempt by attempt as lesson 08 tells it. Print it in a cell with
// fmt.Print(deadline.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/deadline/reference.go", Text: referenceText}
}
