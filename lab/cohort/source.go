package cohort

import (
	_ "embed" // for the reference's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of RunReference, reference.go: the model's
// rules in the order lesson 05 states them, one millisecond at a time. Run
// and RunTraced give exactly its results. Print it in a cell with
// fmt.Print(cohort.Reference()).
func Reference() lab.Source { return lab.Source{Path: "lab/cohort/reference.go", Text: referenceText} }
