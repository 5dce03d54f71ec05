package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// DefaultGrace is the time between SIGTERM and SIGKILL when
// Invocation.Grace is not set.
const DefaultGrace = 10 * time.Second

// Invocation describes one run of an agent.
type Invocation struct {
	// Argv is the command and its arguments. It is run directly, without a
	// shell (write "sh", "-c", "…" for one).
	Argv []string
	// Dir is the working directory (the repository root); "" means the
	// current directory.
	Dir string
	// Env holds KEY=VALUE entries added to the inherited environment
	// (RALPH_SPEC, RALPH_ITERATION, …, and the agent's configured env).
	// Later entries override earlier ones and the inherited ones; [Environ]
	// builds the whole environment.
	Env []string
	// Pass and Remove are the agent's env_pass and env_remove (see
	// [EnvPolicy]).
	Pass, Remove []string
	// Prompt is written to the agent's stdin, which is then closed.
	Prompt string
	// Timeout bounds the run; zero means no timeout.
	Timeout time.Duration
	// Grace is how long the agent's processes get to exit after SIGTERM
	// before SIGKILL; zero means DefaultGrace.
	Grace time.Duration
	// Format names the output format (see NewFormat); "" means "text".
	Format string
	// Output receives stdout and stderr, interleaved, as they arrive
	// (typically the history log file); nil discards them.
	Output io.Writer
	// Watch lists phrases to look for in the final text, ignoring case.
	Watch []string
	// Meter, when set, gets the usage so far each time the CLI's stream
	// tells more of it (see Scanner.Watch); when it returns true the agent
	// is stopped as on a timeout (SIGTERM, then SIGKILL after Grace) and
	// Result.Stopped is set. It runs on the goroutine reading the output:
	// it must be quick, or the agent waits on its pipe meanwhile.
	Meter func(Usage) (stop bool)
	// API is the model API a `command` agent declares (model_api); nil
	// takes the format's own (see FormatAPI).
	API *ModelAPI
	// Host masks the output's secrets, says what of the environment the
	// process does not inherit, and names the shepherd; nil for none.
	Host *Host
}

// Result is the outcome of Run.
type Result struct {
	// Report is what was read from the output.
	Report
	// PID is the agent's process ID, also its process group ID on unix.
	PID int
	// ExitCode is the agent's exit status, -1 if a signal ended it.
	ExitCode int
	// Signal names the signal that ended the agent ("SIGTERM", "SIGKILL"),
	// "" if it exited by itself.
	Signal string
	// TimedOut tells that Invocation.Timeout passed and the agent was
	// stopped; Cancelled that the caller's context was done (e.g. Ctrl-C)
	// and the agent was stopped.
	TimedOut  bool
	Cancelled bool
	// Stopped tells that Invocation.Meter asked to stop the agent, and it
	// was stopped.
	Stopped bool
	// Duration is the time from start until all output was read.
	Duration time.Duration
}

// Run runs the agent described by inv until it exits, its timeout passes
// or ctx is done, and reads its output. When Run returns, no process of the
// agent's process group is left (see the package documentation).
//
// The error is non-nil when the agent could not be started (the message
// names the command and says what to fix), when ctx was done before the
// start, or when writing to inv.Output or reading the output failed; in
// the last two cases the Result is complete as far as the output went. An
// agent that exits with a non-zero status is not an error: see
// Result.ExitCode.
func Run(ctx context.Context, inv Invocation) (Result, error) {
	return runWith(ctx, inv, inv.Host.shepherd())
}

// runWith is Run, under the shepherd exe ("" for none).
func runWith(ctx context.Context, inv Invocation, shepherd string) (Result, error) {
	res := Result{ExitCode: -1}
	if len(inv.Argv) == 0 || inv.Argv[0] == "" {
		return res, errors.New("running agent: the agent command is empty: set it in the config")
	}
	name := inv.Argv[0]
	sc, err := NewScanner(inv.Format, inv.Watch)
	if err != nil {
		return res, fmt.Errorf("running agent %q: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		res.Cancelled = true
		return res, fmt.Errorf("agent %q not started: %w", name, err)
	}
	if inv.Grace <= 0 {
		inv.Grace = DefaultGrace
	}
	inv.Argv = inv.Host.boxedArgv(inv.Format, inv.Argv)
	out := inv.Output
	if out == nil {
		out = io.Discard
	}

	stop := make(chan struct{})
	if inv.Meter != nil {
		var once sync.Once
		sc.Watch(func(u Usage) {
			if inv.Meter(u) {
				once.Do(func() { close(stop) })
			}
		})
	}
	start := time.Now()
	// ralph-ci's git records its git directories before an untrusted
	// process and sweeps them after it (internal/git.Untrusted).
	ended, err := git.Untrusted()
	if err != nil {
		return res, fmt.Errorf("agent %q not started: %w", name, err)
	}
	p, err := startProcess(inv, shepherd, out, sc)
	if err != nil {
		ended(true) // nothing of it runs: startProcess emptied its box
		return res, startError(inv, err)
	}
	res.PID = p.cmd.Process.Pid

	var timeout <-chan time.Time
	if inv.Timeout > 0 {
		t := time.NewTimer(inv.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case err := <-p.waitCh:
		p.waited, p.waitErr = true, err
	case <-timeout:
		res.TimedOut = true
	case <-ctx.Done():
		res.Cancelled = true
	case <-stop:
		res.Stopped = true
	}
	serr := p.settle()
	// All it started is gone for sure where its box was emptied (the
	// kernel said so); without a box, a process may outlive its shepherd.
	ended(p.box != nil && serr == nil)
	errs := []error{serr, p.drain()}
	var exit *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exit) {
		errs = append(errs, fmt.Errorf("waiting for agent %q: %w", name, p.waitErr))
	}
	if p.writeErr != nil {
		errs = append(errs, fmt.Errorf("writing output of agent %q: %w", name, p.writeErr))
	}
	res.Duration = time.Since(start)
	res.Report = sc.Report()
	if ps := p.cmd.ProcessState; ps != nil {
		res.ExitCode, res.Signal = ps.ExitCode(), signalName(ps)
	}
	classifyExit(inv.Format, &res)
	return res, errors.Join(errs...)
}

// startError explains why the agent could not be started.
func startError(inv Invocation, err error) error {
	hint := "check that it is installed and on PATH, or fix the agent command in the config"
	switch {
	case inv.Dir != "" && !isDir(inv.Dir):
		hint = fmt.Sprintf("the working directory %s does not exist or is not a directory", inv.Dir)
	case errors.Is(err, fs.ErrPermission):
		hint = "make it executable (chmod +x), or fix the agent command in the config"
	}
	return fmt.Errorf("starting agent %q: %w (%s)", inv.Argv[0], err, hint)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
