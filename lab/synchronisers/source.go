package synchronisers

import (
	_ "embed" // for the model's source

	"github.com/backofflab/backofflab/lab"
)

//go:embed reference.go
var referenceText string

// Reference returns the source of the four synchronisers' models, reference.go: Cron, TTL, RollingRestart and PartitionHeal, and the random offset they share (lesson 08). Print it in a cell with fmt.Print(synchronisers.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/synchronisers/reference.go", Text: referenceText}
}
