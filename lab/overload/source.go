package overload

import (
	_ "embed" // for the reference's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of RunReference, reference.go: the model's
// rules as lesson 10 states them, tick by tick. Run gives exactly its
// results. Print it in a cell with fmt.Print(overload.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/overload/reference.go", Text: referenceText}
}
