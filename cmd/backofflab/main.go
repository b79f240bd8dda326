// Command backofflab reproduces Backoff Lab's figures and tables outside
// Jupyter. Each lesson adds a subcommand:
//
//	backofflab waves --clients 600 --jitter 1 --json
//	backofflab figures --out DIR
//
// Run "backofflab help" for the list and "backofflab CMD --help" for a
// subcommand's flags. Invalid flags exit with status 2 and say what is allowed.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand. run parses args itself (with a flag.FlagSet
// using ContinueOnError) and returns an exit status.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled by each subcommand's file in an init function, so that
// lessons can add subcommands without editing this file.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("backofflab: subcommand registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "backofflab: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: backofflab COMMAND [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'backofflab COMMAND --help' for a command's flags.")
}

// newFlags returns the flag set of subcommand name. Its usage prints help (the text above the
// flag list, ending in a newline) and then every flag with its allowed range. Errors go to stderr.
func newFlags(name, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), help+"\nflags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's arguments. It returns ok when the command should go on;
// otherwise the command returns status: 0 after printing --help to stdout, 2 after a bad flag
// (the flag package has said which) or a stray argument.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (status int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		return usageError(fs.Output(), fs.Name(), "unexpected argument %q (all settings are flags)", fs.Arg(0)), false
	}
	return 0, true
}

// usageError prints "backofflab NAME: message" to w and returns exit status 2.
func usageError(w io.Writer, name, format string, a ...any) int {
	fmt.Fprintf(w, "backofflab "+name+": "+format+"\n", a...)
	return 2
}
