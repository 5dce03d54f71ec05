package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/internal/gcfloor"
	"github.com/ralph-ci/ralph-ci/internal/logger"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/run"
)

func newRunCommand(opts *GlobalOptions) *cobra.Command {
	var o run.Options
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
a fresh checkout, continues where this one stopped; --deliver branch pushes
work and state the same way to a branch of its own on any event, and opens
no pull request.

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
			if code, ok := asRoot(opts, opts.args); ok {
				opts.relayed = true
				return relayedError(code)
			}
			// On a terminal, the engine draws a progress line on stderr
			// (never on a runner: run's engineOptions).
			if f, ok := opts.stderr.(*os.File); ok && logger.IsTerminal(f) {
				o.Progress = f
			}
			defer gcfloor.Keep()() // a loop of small rotations: see the package
			return run.Run(cmd.Context(), opts.session(), o)
		}),
	}
	cmd.Flags().IntVar(&o.MaxRotations, "max-rotations", 0, "stop after `N` rotations (state saved); 0 uses budgets.max_rotations")
	cmd.Flags().StringVar(&o.JUnit, "junit", "", "write the JUnit XML report to `FILE` (default: reporters.junit)")
	cmd.Flags().StringVar(&o.JSON, "json", "", "write the JSON report to `FILE` (default: reporters.json)")
	cmd.Flags().StringVar(&o.Matrix.Shard, "shard", "", "run as shard `K-of-N` of a CI matrix (ralph-ci plan): its specs only, its state in its own ref, no checkpoint")
	cmd.Flags().StringSliceVar(&o.Matrix.Specs, "specs", nil, "the shard's spec `PATHS` (comma-separated, as plan prints them; default: plan again)")
	cmd.Flags().BoolVar(&o.Matrix.Integrate, "integrate", false, "integrate a matrix's shards: fold their states into the branch's, re-verify what another shard's work may have broken, present the checkpoints")
	// Internal, for tests: the least time between two edits of the
	// progress comment. Hidden: a shorter one only spends the API.
	cmd.Flags().DurationVar(&o.ProgressEvery, "progress-interval", run.DefaultProgressInterval, "internal: the least time between two edits of the progress comment")
	_ = cmd.Flags().MarkHidden("progress-interval")
	cmd.Flags().StringVar(&o.Box, "box", "", "`MODE` of the box every agent and verification command runs in: auto, cgroup, pidns or off (no box: see docs/security.md) (default: box.mode)")
	cmd.Flags().StringVar(&opts.Deliver, "deliver", "", "deliver the work: `MODE` "+deliver.Help()+" (default: delivery.mode)")
	return cmd
}
