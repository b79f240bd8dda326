// Command backofflab-kernel runs GoNB as the "Go (Backoff Lab)" kernel and rewrites what GoNB
// publishes to the front end, so that a learner reads what a failing cell means (see rewriter).
// scripts/kernel starts it; scripts/setup builds it into .cache/bin.
//
//	backofflab-kernel CONNECTION_FILE GONB [GONB_ARGUMENTS...]
//
// Jupyter's shell, control, stdin and heartbeat sockets go straight to GoNB. Only IOPub, the
// socket the kernel publishes its outputs and states on, passes through this program: GoNB is
// given a copy of the connection file with a free port of its own for IOPub; this program
// publishes on the port Jupyter knows, and signs what it changes with the connection's key.
// GoNB gets `--kernel` and the copy's path after its other arguments. Signals that stop or
// interrupt a kernel are passed on to GoNB, and this program ends with GoNB's exit status, once
// it has stopped what GoNB left running (on Linux: GoNB leaves its gopls running when it ends).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"
)

// connection is the part of a Jupyter connection file this program reads or changes.
type connection struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	IOPubPort       int    `json:"iopub_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
}

func main() {
	// GoNB is started from this thread, and asked to stop (Linux's Pdeathsig) when the thread
	// that started it ends: keep it for the program's life.
	runtime.LockOSThread()
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: backofflab-kernel CONNECTION_FILE GONB [GONB_ARGUMENTS...]")
		os.Exit(2)
	}
	code, err := run(os.Args[1], os.Args[2], os.Args[3:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "backofflab-kernel: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// run starts GoNB on a copy of the connection file and relays its IOPub until it exits; it
// returns GoNB's exit status.
func run(connFile, gonb string, args []string) (int, error) {
	raw, err := os.ReadFile(connFile)
	if err != nil {
		return 1, err
	}
	var conn connection
	var fields map[string]any
	if err := json.Unmarshal(raw, &conn); err != nil {
		return 1, fmt.Errorf("%s: not a connection file: %v", connFile, err)
	}
	_ = json.Unmarshal(raw, &fields)
	if conn.Transport != "tcp" || conn.IOPubPort <= 0 {
		// Another transport (ipc): run GoNB as it is, without the rewriting.
		fmt.Fprintf(os.Stderr, "backofflab-kernel: transport %q: running GoNB without rewriting its output\n", conn.Transport)
		return runGoNB(gonb, append(args, "--kernel", connFile), nil)
	}
	if conn.SignatureScheme != "" && conn.SignatureScheme != "hmac-sha256" {
		return 1, fmt.Errorf("%s: signature_scheme %q: only hmac-sha256 is supported", connFile, conn.SignatureScheme)
	}
	inner, err := freePort(conn.IP)
	if err != nil {
		return 1, err
	}
	fields["iopub_port"] = inner
	copyFile, err := os.CreateTemp(filepath.Dir(connFile), "gonb-"+filepath.Base(connFile)+"-*")
	if err != nil {
		return 1, err
	}
	defer os.Remove(copyFile.Name())
	b, _ := json.Marshal(fields)
	if _, err := copyFile.Write(b); err != nil {
		return 1, err
	}
	if err := copyFile.Close(); err != nil {
		return 1, err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pub := zmq4.NewPub(ctx)
	defer pub.Close()
	if err := pub.Listen(fmt.Sprintf("tcp://%s:%d", conn.IP, conn.IOPubPort)); err != nil {
		return 1, fmt.Errorf("publishing on %s:%d: %v", conn.IP, conn.IOPubPort, err)
	}
	return runGoNB(gonb, append(args, "--kernel", copyFile.Name()), func() {
		go relay(ctx, fmt.Sprintf("tcp://%s:%d", conn.IP, inner), pub, []byte(conn.Key))
	})
}

// runGoNB runs GoNB, passing on the signals that interrupt or stop a kernel, and returns its exit
// status. started, if not nil, runs once GoNB has started.
func runGoNB(gonb string, args []string, started func()) (int, error) {
	cmd := exec.Command(gonb, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	stopWithParent(cmd.SysProcAttr) // if this program is killed
	adoptOrphans()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	if started != nil {
		started()
	}
	err := cmd.Wait()
	signal.Stop(signals)
	close(signals)
	stopOrphans(3 * time.Second) // what GoNB left running: its gopls

	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			return 128 + int(status.Signal()), nil
		}
		return exit.ExitCode(), nil
	}
	return 0, err
}

// relay subscribes to GoNB's IOPub at addr and publishes on pub what the rewriter makes of each
// message, until ctx ends. A message it cannot read is passed on as it came. Should the
// subscription end while GoNB runs, it subscribes again.
func relay(ctx context.Context, addr string, pub zmq4.Socket, key []byte) {
	r := newRewriter()
	for ctx.Err() == nil {
		err := relayOnce(ctx, addr, pub, key, r)
		select {
		case <-ctx.Done(): // GoNB ended, and its IOPub with it
			return
		case <-time.After(500 * time.Millisecond):
		}
		fmt.Fprintf(os.Stderr, "backofflab-kernel: GoNB's IOPub at %s: %v (subscribing again)\n", addr, err)
	}
}

// relayOnce relays one subscription's messages, until it fails.
func relayOnce(ctx context.Context, addr string, pub zmq4.Socket, key []byte, r *rewriter) error {
	sub := zmq4.NewSub(ctx, zmq4.WithDialerRetry(50*time.Millisecond), zmq4.WithDialerMaxRetries(600))
	defer sub.Close()
	if err := sub.Dial(addr); err != nil {
		return err
	}
	if err := sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		return err
	}
	for {
		in, err := sub.Recv()
		if err != nil {
			return err
		}
		m, err := parseMessage(in.Frames)
		if err != nil {
			_ = pub.Send(in)
			continue
		}
		for _, out := range r.handle(m) {
			frames := in.Frames
			if out != m { // changed or added: signed anew
				frames = out.frames(key)
			}
			if err := pub.Send(zmq4.NewMsgFrom(frames...)); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "backofflab-kernel: publishing: %v\n", err)
			}
		}
	}
}

// freePort returns a TCP port free on ip now.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, fmt.Errorf("finding a free port for GoNB's IOPub: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
