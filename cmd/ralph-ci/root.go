package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// globalOptions are the flags every subcommand takes.
type globalOptions struct {
	dir       string
	config    string
	logFormat string
	logLevel  string

	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    zerolog.Logger
	env    environment // read once, at the door
	// host is how every agent and verification command starts: the
	// secrets to mask, the environment policy, the shepherd.
	host *agent.Host
}

// execute builds the command tree, runs it and maps the outcome to an
// exit code. It is the only place that turns errors into exit codes.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) exitcode.Code {
	sealed := unsealed()
	getenv := getenvWith(sealed)
	opts := &globalOptions{stdin: stdin, stdout: stdout, stderr: stderr, env: readEnvironment(getenv), host: &agent.Host{}}
	token, err := readToken(getenv)
	opts.env.pr.Token = token
	if err == nil {
		opts.env.pushToken, err = readFD(getenv, pushTokenFDVar)
	}
	protectProcess(opts.host, token)
	opts.host.AddSecrets(opts.env.pushToken)
	opts.host.AddSecrets(sealedSecrets(sealed)...)
	if err != nil {
		fmt.Fprintf(stderr, "ralph-ci: %v\n", err)
		return opts.env.exit(exitcode.Usage, stdout)
	}
	return opts.env.exit(executeArgs(opts, args), stdout)
}

// executeArgs runs the command line args and maps the outcome to an exit code.
func executeArgs(opts *globalOptions, args []string) exitcode.Code {
	stdin, stdout, stderr := opts.stdin, opts.stdout, opts.stderr
	root := newRootCommand(opts)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Of(err)
	var usage *usageError
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

// usageError is a wrong command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

func isCobraUsage(err error) bool {
	// cobra reports unknown commands and flags as plain errors before any
	// RunE runs; they are usage errors.
	var ce *exitcode.Error
	return !errors.As(err, &ce)
}

func newRootCommand(opts *globalOptions) *cobra.Command {
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
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			log, err := newLogger(opts.stderr, opts.logFormat, opts.logLevel, opts.env.runnerDebug)
			if err != nil {
				return &usageError{err}
			}
			opts.log = log
			return nil
		},
	}
	f := root.PersistentFlags()
	f.StringVarP(&opts.dir, "dir", "C", ".", "run as if started in `DIR` (the repository root)")
	f.StringVar(&opts.config, "config", "", "config `FILE` (default: ralph.cue, ralph.yaml, ralph.yml or ralph.json in the root)")
	f.StringVar(&opts.logFormat, "log-format", "auto", "log format on stderr: auto (console on a terminal, else JSON lines), console or json")
	f.StringVar(&opts.logLevel, "log-level", "info", "log level: debug, info, warn or error (RUNNER_DEBUG=1 means debug)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{withFlagSuggestion(c, err)} })

	root.AddCommand(newRunCommand(opts), newCheckCommand(opts), newStatusCommand(opts), newResetCommand(opts), newVersionCommand(opts), newReportCommand(opts), newAnswerCommand(opts), newPlanCommand(opts), newInitCommand(opts))
	root.SuggestionsMinimumDistance = 2
	return root
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
var unknownFlag = regexp.MustCompile(`^unknown flag: --([^ =]+)`)

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
