package contention

import (
	_ "embed" // for the reference's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of RunReference, reference.go: the model's
// rules in the order lesson 09 states them, after Brooker's simulator. Run,
// Repeat and Sweep give exactly its results. Print it in a cell with
// fmt.Print(contention.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/contention/reference.go", Text: referenceText}
}
