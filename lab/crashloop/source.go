package crashloop

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of the crash loop's model, reference.go: the instance that restarts cold, the cohort retrying against it and the readiness gate (lesson 08). Print it in a cell with fmt.Print(crashloop.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/crashloop/reference.go", Text: referenceText}
}
