package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/prchannel"
)

func newAnswerCommand(opts *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "answer SPEC 1|2|3 [feedback...]",
		Short: "Answer a verify-tier checkpoint without a pull request (a laptop)",
		Long: `answer gives the answer to the open checkpoint of SPEC, as a reply on a pull
request would: 1 (or yes) approves it for the current HEAD commit; 2 and 3
reject it (2: revise the contract, 3: more detail for the implementation)
with the feedback that follows, which the next rotations get as behavioural
context; anything else rejects it too (tighten the tests). After three
rejections the checkpoint escalates and 1, 2 or 3 chooses: re-scope, pair
(the feedback is your step-by-step guidance) or skip verification.`,
		Example: `  ralph-ci answer specs/auth.spec.md 1
  ralph-ci answer specs/auth.spec.md 3 expired tokens must return 401, not 500`,
		Args: cobra.MinimumNArgs(2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			p, err := loadProject(opts)
			if err != nil {
				return err
			}
			sp, ok := findSpec(p, args[0])
			if !ok {
				return &usageError{fmt.Errorf("%s: no such spec (ralph-ci check lists them)", args[0])}
			}
			if sp.Tier != plan.TierVerify {
				return &usageError{fmt.Errorf("%s is of the %s tier: it has no human checkpoint", sp.Path, sp.Tier)}
			}
			dir := state.At(p.Root)
			lock, st, err := state.Open(dir, state.LockInfo{Command: "answer", Version: versionString()})
			if err != nil {
				return err
			}
			defer lock.Release()
			eff, err := gate.Answer(cmd.Context(), gate.Local{Root: p.Root, Out: opts.stdout}, sp, &st, localUser(), strings.Join(args[1:], " "), opts.log)
			if err != nil {
				return exitcode.New(exitcode.Usage, err)
			}
			if err := state.Save(dir, st); err != nil {
				return err
			}
			switch {
			case eff.Ignored != "":
				return exitcode.Printed(exitcode.Usage, fmt.Errorf("%s", eff.Ignored))
			case eff.Escalated:
				return exitcode.Printed(exitcode.Escalated, fmt.Errorf("escalated"))
			case eff.Rejected:
				return exitcode.Printed(exitcode.Rejected, fmt.Errorf("rejected"))
			}
			return nil
		}),
	}
}

// findSpec finds a spec by path (as check lists it) or id.
func findSpec(p *project.Project, name string) (plan.Spec, bool) {
	for _, sp := range p.Specs {
		if sp.Path == name || sp.ID == name {
			return sp, true
		}
	}
	return plan.Spec{}, false
}

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}

// checkpointChannel is where checkpoints go: the pull request of the
// GitHub Actions event when there is one, else the terminal.
func checkpointChannel(ctx context.Context, opts *globalOptions, p *project.Project) (gate.Channel, error) {
	env := prchannel.EnvFrom(os.Getenv)
	pr, ok, err := env.PullRequest()
	if err != nil {
		return nil, err
	}
	if !ok {
		return gate.Local{Root: p.Root, Out: opts.stdout}, nil
	}
	files, trusted := approvalConfig(p.Root, p.ConfigPath, opts.config == "")
	if trusted {
		opts.log.Info().Str("config", p.ConfigPath).Msg("the config lies outside the repository's checkout, so it did not come from the pull request: its github section (who may approve) is used as given")
	}
	c, err := prchannel.New(prchannel.Options{Env: env, PR: pr, Config: p.Config.GitHub, ConfigFiles: files, TrustConfig: trusted,
		DefaultTier: p.Config.Specs.DefaultTier, Log: opts.log, Actions: actions.EnvFrom(os.Getenv), Stdout: opts.stdout})
	if err != nil {
		return nil, err
	}
	// A pull request may raise a spec's tier, not lower it: a spec that
	// was verify on the base commit keeps its checkpoint (prchannel's
	// RaiseTiers). Before anything uses the tiers (run's loop, the gate).
	c.RaiseTiers(ctx, p.Specs, repoPrefix(p.Root))
	return c, nil
}

// repoPrefix is the directory of root in its repository (the nearest
// directory above it with a .git), slash-separated with a trailing slash,
// "" at the repository's top.
func repoPrefix(root string) string {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	top := repoTop(absRoot)
	rel, err := filepath.Rel(top, absRoot)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// repoTop is the nearest directory at or above absRoot with a .git, else
// absRoot.
func repoTop(absRoot string) string {
	for d := absRoot; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return absRoot // no repository above root: root is its top
		}
	}
}

// approvalConfig says where, on a pull request, the github section that
// decides who may approve comes from. The checked-out repository is the
// pull request's, so a config in it is read again from the base commit:
// files are its paths relative to the repository root (the nearest
// directory above root with a .git), the one loaded first, then, when it
// was found at the root rather than named (discovered), the other names it
// may have there, so that renaming it in the pull request does not lose
// the base's settings. A config outside the repository (not under its
// root, or inside another git checkout within it, as the base branch
// checked out beside the head in .ralph-base/) did not come from the pull
// request and is trusted as given. git never checks out a .git entry from
// a commit, so a pull request cannot make its files look like another
// checkout.
func approvalConfig(root, configPath string, discovered bool) (files []string, trusted bool) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, false
	}
	file := configPath
	if !filepath.IsAbs(file) {
		file = filepath.Join(absRoot, file)
	}
	file = filepath.Clean(file)
	top := repoTop(absRoot)
	rel, err := filepath.Rel(top, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, true // outside the repository
	}
	for d := filepath.Dir(file); d != top && strings.HasPrefix(d, top); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return nil, true // another checkout inside it
		}
	}
	rel = filepath.ToSlash(rel)
	files = []string{rel}
	if discovered {
		dir := path.Dir(rel)
		for _, name := range project.ConfigNames {
			if f := path.Join(dir, name); f != rel {
				files = append(files, f)
			}
		}
	}
	return files, false
}

// gateCode is the exit code of the checkpoints' result.
func gateCode(res gate.Result) (exitcode.Code, string) {
	switch {
	case len(res.Escalated) > 0:
		return exitcode.Escalated, fmt.Sprintf("checkpoint rejected %d times; escalated, waiting for a decision (1/2/3): %v", tiers.EscalationThreshold, res.Escalated)
	case len(res.Rework) > 0:
		return exitcode.Rejected, fmt.Sprintf("checkpoint rejected; back to work: %v", res.Rework)
	case len(res.Pending) > 0:
		return exitcode.AwaitHuman, fmt.Sprintf("awaiting the human checkpoint of the verify tier: %v", res.Pending)
	}
	return exitcode.OK, "every verify-tier checkpoint is approved for the head commit"
}
