// Command backofflab reproduces Backoff Lab's figures and tables outside
// Jupyter. Each lesson adds a subcommand:
//
//	backofflab waves --clients 600 --jitter 1 --json
//	backofflab figures --out DIR
//
// Run "backofflab help" for the list and "backofflab CMD --help" for a
// subcommand's flags. Invalid flags exit with status 2 and say what is
// allowed. Errors go to stderr as "backofflab CMD: ..."; a failed write to
// stdout exits with status 1 and says so.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
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
		out := &outputWriter{w: stdout}
		usage(out)
		if out.err != nil {
			fmt.Fprintf(stderr, "backofflab: writing output: %v\n", out.err.err)
			return 1
		}
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
	out := &outputWriter{w: stdout}
	status := c.run(args[1:], out, stderr)
	if out.err != nil {
		fmt.Fprintf(stderr, "backofflab %s: writing output: %v\n", args[0], out.err.err)
		return 1
	}
	return status
}

// outputWriter passes writes to stdout and remembers the first that
// failed; after it, every write fails at once. dispatch reports that
// error, once, and exits 1, so a subcommand need not check its writes.
type outputWriter struct {
	w   io.Writer
	err *outputError
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = &outputError{err}
		return n, o.err
	}
	return n, nil
}

// outputError is a failed write to stdout, which dispatch reports.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// runError prints "backofflab NAME: err" to stderr and returns exit status
// 1; a failed write to stdout it leaves to dispatch, which reports it.
func runError(stderr io.Writer, name string, err error) int {
	if _, ok := errors.AsType[*outputError](err); !ok {
		fmt.Fprintf(stderr, "backofflab %s: %v\n", name, err)
	}
	return 1
}

// writeJSON writes v to stdout as indented JSON; an error goes to stderr
// (see runError) and makes the status 1.
func writeJSON(stdout, stderr io.Writer, cmd string, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return runError(stderr, cmd, err)
	}
	return 0
}

// refuseZero checks the named flags of fs: one given on the command line as
// 0, where the library would read 0 as "the default", is out of the range
// its help states. It prints "backofflab NAME: --flag 0 out of range: want
// <the range in the flag's help>" and returns status 2 and false for the
// first such flag, else 0 and true.
func refuseZero(fs *flag.FlagSet, stderr io.Writer, names ...string) (int, bool) {
	status, ok := 0, true
	fs.Visit(func(f *flag.Flag) {
		if !ok || !slices.Contains(names, f.Name) || !isZero(f.Value.String()) {
			return
		}
		want := f.Usage
		if i := strings.IndexByte(want, '('); i >= 0 {
			if j := strings.IndexByte(want[i:], ')'); j > 0 {
				want = want[i+1 : i+j]
			}
		}
		status, ok = usageError(stderr, fs.Name(), "--%s %s out of range: want %s", f.Name, f.Value, want), false
	})
	return status, ok
}

// isZero reports whether a flag's value prints as zero.
func isZero(v string) bool {
	if v == "0s" {
		return true
	}
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f == 0
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
	// The flag package prints the usage itself, to stderr; print it once,
	// where it belongs.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0, false
		}
		fs.Usage()
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
