package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/lab/schedule"
)

// policyName returns the policy name (one of schedule.Names) that the value
// of a command's flag means. The names of the first edition keep working for
// one release, with a deprecation message on stderr: "flat" is now
// "constant", and "none" is legacyNone, which depends on the command (plain
// exponential backoff for most, "immediate" for contention, where "none"
// meant no backoff at all). Any other unknown name is an error that names the
// flag and lists the names.
func policyName(cmd, flag, value, legacyNone string, stderr io.Writer) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	renamed := map[string]string{"flat": schedule.NameConstant, "none": legacyNone}
	if name, ok := renamed[v]; ok && name != "" {
		fmt.Fprintf(stderr, "backofflab %s: %s %s is deprecated and will be removed in the next release: use %s\n", cmd, flag, v, name)
		return name, nil
	}
	if err := schedule.CheckName(v); err != nil {
		return "", fmt.Errorf("%s: unknown policy %q: want one of %s", flag, value, strings.Join(schedule.Names(), ", "))
	}
	return v, nil
}

// policyNames splits a comma-separated flag value and applies policyName to
// each name.
func policyNames(cmd, flag, value, legacyNone string, stderr io.Writer) ([]string, error) {
	var out []string
	for _, v := range strings.Split(value, ",") {
		name, err := policyName(cmd, flag, v, legacyNone, stderr)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("%s names %s twice: name each policy once", flag, name)
		}
		out = append(out, name)
	}
	return out, nil
}
