package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/publish"

	"github.com/spf13/cobra"
)

func newRunCommand(opts *globalOptions) *cobra.Command {
	var maxRotations int
	var progressEvery time.Duration
	var junitPath, jsonPath, deliverMode string
	var matrix matrixRun
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the Ralph loop over every spec until all are verified",
		Long: `run works through the discovered specs one rotation at a time: it runs the
stage's agent on the spec with the prompt on stdin, reads its status, judges
its completion claim, detects changed files and updates the verification
counters (0/3 .. 3/3), saving .ralph/state.json after every rotation. It
stops when every spec is verified 3/3, or when a limit is reached (state is
saved: run it again to continue). The exit code says how it ended (see the
the exit-code table of the README).

--deliver commit makes each rotation that changed files one commit by
ralph-ci (trailers Ralph-Spec, Ralph-Stage, Ralph-Iteration, Ralph-Status);
--deliver pr also pushes it, to the pull request's head branch (or to a
branch of its own, with a pull request opened for it), and pushes the
loop's state to refs/ralph-ci/state/<branch>, so that the next CI job, from
a fresh checkout, continues where this one stopped.

In a CI matrix (see ralph-ci plan and the docs/delivery.md), --shard
K-of-N --specs LIST works on the shard's specs only: its commits go to the
same branch (rebased onto the other shards' pushes), its state to its own
ref, refs/ralph-ci/shards/K-of-N/<branch>, and its verify-tier specs are
done at 3/3 (their checkpoints wait for the integration). --integrate, in a
job after the matrix, folds every shard's state into the branch's: a spec
verified 3/3 in one shard while files it has not seen changed drops to 2/3
and is verified again on the integrated commit, until every spec is 3/3 on
the same commit; the checkpoints are presented there, once per spec.`,
		Example: `  ralph-ci run
  ralph-ci run --max-rotations 10     # one slice of a long loop; the next job continues
  ralph-ci run --deliver pr           # in CI: push the work and the state
  ralph-ci run --deliver pr --shard 2-of-4 --specs specs/a.spec.md,specs/b.spec.md
  ralph-ci run --deliver pr --integrate
  ralph-ci -C examples/quickstart run`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if maxRotations < 0 {
				return &usageError{fmt.Errorf("--max-rotations %d: want 0 (the config's budget) or more", maxRotations)}
			}
			if own, head, err := ownPush(cmd.Context(), opts); err != nil || own {
				if own {
					fmt.Fprintf(opts.stdout, "::notice title=ralph-ci::this run was started by ralph-ci's own push (%.7s carries Ralph-* trailers): no second loop; the repository's workflows run on that head\n", head)
					opts.log.Info().Str("head", head).Msg("started by ralph-ci's own push: nothing to do")
				}
				return err
			}
			if fork, asked, why, err := forkAsked(cmd.Context(), opts); err != nil || (fork && !asked) {
				if why != "" {
					fmt.Fprintf(opts.stdout, "::notice title=ralph-ci::%s\n", why)
					opts.log.Info().Msg(why)
				}
				return err
			}
			p, mode, err := loadDelivering(opts, loadRunProject, deliverMode)
			if err != nil {
				return err
			}
			// The loader watches the spec folders; the engine closes it,
			// and these close it on a return before the engine runs.
			defer p.Loader.Close()
			if err := matrix.check(mode); err != nil {
				return err
			}
			ctx, sig := signalContext(cmd.Context())
			restore := useGitCredential(ctx, opts, p.Root)
			defer restore()
			p, dl, err := setupDelivery(ctx, opts, p, mode)
			if err != nil {
				return err
			}
			defer p.Loader.Close()
			if dl != nil {
				if err := matrix.prepare(ctx, opts, p, dl); err != nil {
					return err
				}
			}
			opts.host.Remove = p.Config.Environment.Remove
			denyGitDirs(opts)
			o := engineOptions(opts, p, maxRotations)
			o.Shard, o.Integration = matrix.shard, matrix.integrate
			if dl == nil { // a delivered state comes from its own ref, never from the checkout
				o.UntrustedState = state.Committed(ctx, p.Root)
			}
			if dl != nil {
				o.Deliverer = dl.session
			}
			if matrix.shard == "" { // a shard's checkpoints wait for the integration
				if o.Checkpoints, err = checkpointChannel(ctx, opts, p); err != nil {
					return err
				}
			}
			progress := newProgressComment(opts, p, o.Checkpoints, maxRotations, progressEvery)
			if progress != nil {
				o.AfterRotation = func(ctx context.Context, rotations int, cost float64, specs []plan.Spec, st *state.State) {
					progress.update(ctx, rotations, cost, specs, st, "")
				}
			}
			out, err := engine.Run(ctx, o)
			code := endRun(ctx, opts, p, dl, &matrix, sig, out, err, junitPath, jsonPath)
			progress.update(ctx, out.Rotations, out.CostUSD, out.Specs, &out.State, exitcode.Of(code).Class())
			runGate(ctx, opts, p, o.Checkpoints, dl, exitcode.Of(code), err, out.Message, &out.State)
			return code
		}),
	}
	cmd.Flags().IntVar(&maxRotations, "max-rotations", 0, "stop after `N` rotations (state saved); 0 uses budgets.max_rotations")
	cmd.Flags().StringVar(&junitPath, "junit", "", "write the JUnit XML report to `FILE` (default: reporters.junit)")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write the JSON report to `FILE` (default: reporters.json)")
	cmd.Flags().StringVar(&matrix.shard, "shard", "", "run as shard `K-of-N` of a CI matrix (ralph-ci plan): its specs only, its state in its own ref, no checkpoint")
	cmd.Flags().StringSliceVar(&matrix.specs, "specs", nil, "the shard's spec `PATHS` (comma-separated, as plan prints them; default: plan again)")
	cmd.Flags().BoolVar(&matrix.integrate, "integrate", false, "integrate a matrix's shards: fold their states into the branch's, re-verify what another shard's work may have broken, present the checkpoints")
	// Internal, for tests: the least time between two edits of the
	// progress comment. Hidden: a shorter one only spends the API.
	cmd.Flags().DurationVar(&progressEvery, "progress-interval", defaultProgressInterval, "internal: the least time between two edits of the progress comment")
	_ = cmd.Flags().MarkHidden("progress-interval")
	cmd.Flags().StringVar(&deliverMode, "deliver", "", "deliver the work: `MODE` none, commit (a commit per rotation) or pr (commit and push; the state travels in git) (default: delivery.mode)")
	return cmd
}

// endRun finishes a run: the delivery and the matrix's last pushes, the
// matrix of specs on stdout, the reports (written even for an interrupted
// run) and the exit code, which exitcode.RunEnd decides from what each
// step returned.
func endRun(ctx context.Context, opts *globalOptions, p *project.Project, dl *delivery, matrix *matrixRun, sig *caughtSignal, out engine.Outcome, err error, junitPath, jsonPath string) error {
	derr := dl.finish(context.WithoutCancel(ctx), opts, out.Message)
	// Interrupted, the integrated state may not have been pushed:
	// the shards' states stay for the next integration.
	pushed := err == nil && derr == nil && out.Code != exitcode.Interrupted
	if merr := matrix.finish(context.WithoutCancel(ctx), opts, dl, pushed); merr != nil && derr == nil {
		derr = merr
	}
	if derr != nil {
		opts.log.Error().Err(derr).Msg("delivery: the pull request or the outputs failed")
	}
	printRows(opts, engine.Rows(out.Specs, out.State))
	end := exitcode.RunEnd{Engine: out.Code, EngineErr: err, Delivery: derr, Signal: sig.code()}
	code := end.Code()
	end.Reports = writeReports(context.WithoutCancel(ctx), opts, p, out.Report, code, junitPath, jsonPath)
	switch final := end.Code(); {
	case err != nil:
		return err
	case final != code:
		return exitcode.New(final, end.Reports)
	}
	ev := opts.log.Info()
	if code != exitcode.OK {
		ev = opts.log.Warn()
	}
	ev.Int("rotations", out.Rotations).Str("exit", code.Class()).Msg(out.Message)
	if code != exitcode.OK {
		return exitcode.Printed(code, fmt.Errorf("%s", out.Message))
	}
	return nil
}

// engineOptions are the engine's options of one run: the agents' output
// echoed in folded groups on GitHub Actions, a progress line on a
// terminal.
func engineOptions(opts *globalOptions, p *project.Project, maxRotations int) engine.Options {
	o := engine.Options{Project: p, MaxRotations: maxRotations, Log: opts.log, Version: versionString(), Host: opts.host}
	if opts.env.actions.Actions {
		o.Echo = actionsEcho(opts.stdout)
	}
	// On a runner the log is no terminal, whatever the runner says:
	// ::group:: blocks only, no progress line.
	if f, ok := opts.stderr.(*os.File); ok && isTerminal(f) && !opts.env.actions.Actions {
		o.Progress = f
	}
	return o
}

// writeReports writes the run's report, with the exit code the process
// ends with, to the configured files (the flags win) and GitHub Actions'
// places. A failure is logged and returned.
func writeReports(ctx context.Context, opts *globalOptions, p *project.Project, r *report.Report, code exitcode.Code, junitPath, jsonPath string) error {
	if r == nil {
		return nil
	}
	r.Exit.Code, r.Exit.Class = int(code), code.Class()
	targets := publish.Targets{Root: p.Root, JUnit: cmp.Or(junitPath, p.Config.Reporters.JUnit), JSON: cmp.Or(jsonPath, p.Config.Reporters.JSON), GitHub: true}
	if err := publish.Write(ctx, r, targets, opts.env.actions, opts.stdout); err != nil {
		opts.log.Error().Err(err).Msg("writing the reports failed")
		return err
	}
	return nil
}

// actionsEcho shows each rotation's agent output in the job log, folded
// in a ::group:: and fenced with ::stop-commands:: so that an agent cannot
// issue workflow commands.
func actionsEcho(w io.Writer) func(string) (io.Writer, func()) {
	return func(title string) (io.Writer, func()) {
		end, err := actions.Group(w, title)
		if err != nil {
			return io.Discard, func() {}
		}
		resume, err := actions.StopCommands(w, nil)
		if err != nil {
			_ = end()
			return io.Discard, func() {}
		}
		return w, func() {
			fmt.Fprintln(w)
			_ = resume()
			_ = end()
		}
	}
}

// caughtSignal remembers which signal cancelled the run.
type caughtSignal struct{ sig os.Signal }

func (c *caughtSignal) code() exitcode.Code {
	if s, ok := c.sig.(syscall.Signal); ok {
		return exitcode.Code(128 + int(s))
	}
	return exitcode.Interrupted
}

// signalContext cancels the context on SIGINT or SIGTERM: the agent's
// process group is stopped, state is kept, and the exit code is 128+signal.
func signalContext(parent context.Context) (context.Context, *caughtSignal) {
	ctx, cancel := context.WithCancel(parent)
	c := &caughtSignal{}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			c.sig = s
			cancel()
		case <-ctx.Done():
		}
		signal.Stop(ch)
	}()
	return ctx, c
}
