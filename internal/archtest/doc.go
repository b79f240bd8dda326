// Package archtest holds no code, only tests: they enforce the import rules
// of ARCHITECTURE.md with `go list`, check that a program importing only
// retry gets no other module in its build list, and check that retry and the
// lessons' schedule package agree (one Uniform type, the same full jitter).
package archtest
