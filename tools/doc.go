// Package tools is empty: this module only pins, in its go.mod, the tools
// that scripts/setup builds into .cache/bin (GoNB, goimports, gopls), so
// that neither they nor their dependencies enter the build list of a
// program that imports the lessons or retry.
package tools
