package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/schedule"
)

func TestPolicyNameAcceptsOldNamesWithADeprecation(t *testing.T) {
	for _, c := range []struct {
		value, legacyNone, want, warning string
	}{
		{"full", schedule.NameExponential, "full", ""},
		{" Constant ", schedule.NameExponential, "constant", ""},
		{"flat", schedule.NameExponential, "constant", "--policy flat is deprecated and will be removed in the next release: use constant"},
		{"none", schedule.NameExponential, "exponential", "--policy none is deprecated and will be removed in the next release: use exponential"},
		{"none", schedule.NameImmediate, "immediate", "use immediate"},
	} {
		t.Run(c.value+"/"+c.legacyNone, func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := policyName("cohort", "--policy", c.value, c.legacyNone, &stderr)
			if err != nil || got != c.want {
				t.Fatalf("policyName(%q) = %q, %v; want %q", c.value, got, err, c.want)
			}
			if c.warning == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), c.warning) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.warning)
			}
		})
	}
}

func TestPolicyNameRejectsUnknownNames(t *testing.T) {
	for _, v := range []string{"", "jitter", "none"} {
		t.Run(v, func(t *testing.T) {
			legacyNone := schedule.NameExponential
			if v == "none" {
				legacyNone = "" // a command where "none" never meant anything
			}
			_, err := policyNames("strategies", "--policies", "full,"+v, legacyNone, new(bytes.Buffer))
			if err == nil || !strings.Contains(err.Error(), "--policies: unknown policy") || !strings.Contains(err.Error(), "exponential, full, equal, decorrelated, uniform, constant, immediate") {
				t.Errorf("policyNames(full,%s): %v, want an error naming --policies and listing the names", v, err)
			}
		})
	}
}
