package synchrony

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var cohortText string

// Reference returns the source of the cohort's model, reference.go: lesson
// 07's rules, from which every attempt time of a Cohort comes. Print it in
// a cell with fmt.Print(synchrony.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/synchrony/reference.go", Text: cohortText}
}
