package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ralph-ci/ralph-ci/github/jobenv"
	"github.com/ralph-ci/ralph-ci/reporters/actions"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/internal/logger"
	"github.com/ralph-ci/ralph-ci/internal/seal"
	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// GlobalOptions are the flags every subcommand takes and the job they
// make (job.Session: -C, --config, the writers, the log, the environment read
// once at the door, the agent host), which each command hands to its one
// function below.
type GlobalOptions struct {
	job.Session
	logFormat string
	logLevel  string

	stdin  io.Reader
	stderr io.Writer

	// args are the command line's arguments; sealed the entries Seal
	// moved out of the environment.
	args   []string
	sealed map[string]string
	// relayed is set when run ran again as root through sudo (asRoot),
	// which wrote the outputs and reports itself.
	relayed bool
}

// execute builds the command tree, runs it and maps the outcome to an
// exit code. It is the only place that turns errors into exit codes.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) exitcode.Code {
	sealed := seal.Unsealed()
	getenv := seal.Getenv(sealed)
	env := jobenv.From(getenv)
	if env.Actions.Actions { // the runner reads the log for workflow commands: only ralph-ci's own may be one
		stdout, stderr = actions.NewGuard(stdout), actions.NewGuard(stderr)
	}
	opts := &GlobalOptions{Session: job.Session{Stdout: stdout, Env: env, Host: &agent.Host{}, Version: versionString()}, stdin: stdin, stderr: stderr, args: args, sealed: sealed}
	token, err := seal.Token(getenv, agent.TokenFDVar, agent.TokenFileVar)
	opts.Env.PR.Token = token
	if err == nil {
		opts.Env.PushToken, err = seal.Secret(getenv, agent.PushTokenFDVar, agent.PushTokenFileVar)
	}
	opts.Host.Keys = modelKeys(sealed)
	protectProcess(opts.Host, token)
	opts.Host.AddSecrets(opts.Env.PushToken)
	opts.Host.AddSecrets(sealedSecrets(sealed)...)
	if err != nil {
		fmt.Fprintf(stderr, "ralph-ci: %v\n", err)
		return opts.Env.Exit(exitcode.Usage, stdout)
	}
	code := executeArgs(opts, args)
	if opts.relayed { // the run as root wrote the exit-code output itself
		return code
	}
	return opts.Env.Exit(code, stdout)
}

// executeArgs runs the command line args and maps the outcome to an exit code.
func executeArgs(opts *GlobalOptions, args []string) exitcode.Code {
	stdin, stdout, stderr := opts.stdin, opts.Stdout, opts.stderr
	root := NewRootCommand(opts)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Of(err)
	var usage *exitcode.UsageError
	if errors.As(err, &usage) || isCobraUsage(err) {
		code = exitcode.Usage
		path := "ralph-ci"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "ralph-ci: %v\nRun '%s --help' for usage.\n", err, path)
		return code
	}
	var ce *exitcode.Error
	if !(errors.As(err, &ce) && ce.Printed) {
		fmt.Fprintf(stderr, "ralph-ci: %v\n", err)
	}
	return code
}

func isCobraUsage(err error) bool {
	// cobra reports unknown commands and flags as plain errors before any
	// RunE runs; they are usage errors.
	var ce *exitcode.Error
	return !errors.As(err, &ce)
}

func NewRootCommand(opts *GlobalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "ralph-ci",
		Short: "Run coding agents in verified Ralph loops in CI",
		Long: `ralph-ci runs a coding agent CLI (Claude Code, Codex, Gemini CLI or any
command) on each spec of a repository again and again until the work is
verified done, then reports. Configuration lives in ralph.yaml (or
ralph.json, ralph.cue) at the repository root; specs are PROMPT.md and
*.spec.md files under specs/ and .ralph/specs/.`,
		Example: `  ralph-ci check                      # validate ralph.yaml and every spec
  ralph-ci run                        # loop until every spec is verified 3/3
  ralph-ci run --max-rotations 20     # one slice of a long loop
  ralph-ci status --json
  ralph-ci -C examples/quickstart run`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		// completion bash|zsh|fish|powershell: cobra's own, for a
		// user's shell.
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			log, err := logger.New(opts.stderr, opts.logFormat, opts.logLevel, opts.Env.RunnerDebug)
			if err != nil {
				return &exitcode.UsageError{Err: err}
			}
			opts.Log = log
			findRoot(cmd, opts)
			return nil
		},
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.Flags().BoolP("version", "v", false, "print the ralph-ci version, as ralph-ci version does")
	f := root.PersistentFlags()
	f.StringVarP(&opts.Dir, "dir", "C", ".", "run as if started in `DIR` (the repository root)")
	f.StringVar(&opts.Config, "config", "", "config `FILE` (default: ralph.cue, ralph.yaml, ralph.yml or ralph.json in the root)")
	f.StringVar(&opts.logFormat, "log-format", "auto", "log format on stderr: auto (console on a terminal, else JSON lines), console or json")
	f.StringVar(&opts.logLevel, "log-level", "info", "log level: debug, info, warn or error (RUNNER_DEBUG=1 means debug)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &exitcode.UsageError{Err: withFlagSuggestion(c, err)} })

	root.AddCommand(newRunCommand(opts), newCheckCommand(opts), newStatusCommand(opts), newResetCommand(opts), newVersionCommand(opts), newReportCommand(opts), newAnswerCommand(opts), newPlanCommand(opts), newInitCommand(opts))
	root.SuggestionsMinimumDistance = 2
	return root
}

// loadsProject are the commands that read the config and the specs:
// started in a subfolder without -C or --config, they find the root
// above it (findRoot).
var loadsProject = map[string]bool{"run": true, "check": true, "status": true, "reset": true, "plan": true, "answer": true}

// findRoot makes a command started in a subfolder of the repository
// (without -C or --config) run at the nearest folder above that holds a
// config, up to the repository's top, and says so.
func findRoot(cmd *cobra.Command, opts *GlobalOptions) {
	if !loadsProject[cmd.Name()] || opts.Config != "" {
		return
	}
	if f := cmd.Flag("dir"); f != nil && f.Changed {
		return
	}
	root, _, ok := project.FindRoot(opts.Dir)
	if !ok {
		return
	}
	if here, err := filepath.Abs(opts.Dir); err == nil && here != root {
		opts.Log.Info().Str("root", root).Msg("config found above the current folder: running at " + root)
		opts.Dir = root
	}
}

// runE adapts a command body so that every error it returns carries an
// exit code (Failure unless it says otherwise). Errors without a code can
// then only come from cobra itself: usage errors.
func runE(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var ce *exitcode.Error
		if err != nil && !errors.As(err, &ce) {
			return exitcode.New(exitcode.Failure, err)
		}
		return err
	}
}

// unknownFlag is how pflag names a flag it does not know.
var unknownFlag = lazyregexp.New(`^unknown flag: --([^ =]+)`)

// withFlagSuggestion adds the closest flag of c to an unknown flag's error:
// "unknown flag: --shard; did you mean --shards?".
func withFlagSuggestion(c *cobra.Command, err error) error {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if sug := text.Suggest(m[1], names); sug != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, sug)
	}
	return err
}

// session is the job session of the command that runs (job.Open): built
// once, at the door, and handed to the command's one function.
func (o *GlobalOptions) session() *job.Session { return job.Open(&o.Session) }

// modelKeys are the model APIs' keys among the sealed entries, for the
// proxy (agent.Host.Keys).
func modelKeys(sealed map[string]string) []string {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(sealed)) {
		if agent.ModelKey(k) {
			keys = append(keys, k+"="+sealed[k])
		}
	}
	return keys
}
