package synchrony

import (
	_ "embed" // for the models' sources

	"github.com/backofflab/backofflab/lab"
)

var (
	//go:embed reference.go
	cohortText string
	//go:embed reference_layered.go
	layeredText string
	//go:embed reference_warmup.go
	warmupText string
	//go:embed reference_synchronisers.go
	synchronisersText string
)

// Reference returns the source of the cohort's model, reference.go: lesson
// 07's rules, from which every attempt time of a Cohort comes. Print it in
// a cell with fmt.Print(synchrony.Reference()).
func Reference() lab.Source {
	return lab.Source{Path: "lab/synchrony/reference.go", Text: cohortText}
}

// LayeredReference returns the source of Layered's model: the outer layer
// that backs off above an inner one that retries at once (lesson 08).
func LayeredReference() lab.Source {
	return lab.Source{Path: "lab/synchrony/reference_layered.go", Text: layeredText}
}

// WarmupReference returns the source of Warmup's model: the instance that
// restarts cold, the cohort retrying against it and the readiness gate
// (lesson 08).
func WarmupReference() lab.Source {
	return lab.Source{Path: "lab/synchrony/reference_warmup.go", Text: warmupText}
}

// SynchronisersReference returns the source of the four other
// synchronisers' models, Cron, TTL, RollingRestart and PartitionHeal, and
// the random offset they share (lesson 08).
func SynchronisersReference() lab.Source {
	return lab.Source{Path: "lab/synchrony/reference_synchronisers.go", Text: synchronisersText}
}
