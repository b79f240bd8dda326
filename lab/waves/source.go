package waves

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the model's source, reference.go: the lessons' rules in
// the order lesson 01 states them, which every Run follows. Print it in a
// cell with fmt.Print(waves.Reference()).
func Reference() lab.Source { return lab.Source{Path: "lab/waves/reference.go", Text: referenceText} }
