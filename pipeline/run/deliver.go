package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/github/pulls"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// delivery is a run's delivery: the session the engine calls, and what
// the step outputs report afterwards.
type delivery struct {
	session *deliver.Session
	event   deliver.Event
	// start is the commit the loop started from: CI is started only when
	// a push of this run moved the branch past it.
	start string
	// ciWorkflows are started on the pushed branch after the last push
	// (delivery.ci_workflows), unless the push token pushed (its push
	// starts them).
	ciWorkflows []string
}

// git is the delivery's git (the zero Git without a delivery).
func (d *delivery) git() deliver.Git {
	if d == nil {
		return deliver.Git{}
	}
	return d.session.Git
}

// setupDelivery puts the checkout on the branch the loop works on and
// reloads the project from it (pr mode: the pull request's head, not the
// merge ref actions/checkout leaves). It returns nil for a mode that
// leaves the work in the work tree.
func setupDelivery(ctx context.Context, j *job.Trusted, p *project.Project) (*project.Project, *delivery, error) {
	mode := j.Mode
	if !mode.Delivers() {
		return p, nil, nil
	}
	// Absolute: git runs in the root, while -C may have named it relative
	// to the caller; every path handed to git must hold from there.
	root, err := filepath.Abs(p.Root)
	if err != nil {
		return nil, nil, err
	}
	reports, err := filepath.Abs(reportsDir(p))
	if err != nil {
		return nil, nil, err
	}
	if err := belowTopLevel(ctx, root); err != nil {
		return nil, nil, err
	}
	g := deliver.Git{Dir: root}
	if _, err := g.Run(ctx, "remote", "get-url", "origin"); err != nil && mode.Pushes == deliver.Yes {
		return nil, nil, exitcode.Usagef("--deliver %s pushes the work to the remote origin, and the repository at %s has none: add it (git remote add origin URL), or use --deliver commit (commits only) or none (docs/troubleshooting.md#no-remote-origin)", mode.Name, root)
	}
	id := deliver.DefaultIdentity
	if a := p.Config.Delivery.Author; a != nil {
		id = deliver.Identity{Name: a.Name, Email: a.Email}
	}
	d := &delivery{ciWorkflows: p.Config.Delivery.CIWorkflows}
	bd, err := j.StateBinder()
	if err != nil {
		return nil, nil, err
	}
	s := &deliver.Session{Git: g, StateDir: state.At(root).Path(), Identity: id, Reports: reports,
		Binder: bd, Warn: func(msg string) { j.Log.Warn().Msg(msg) }}
	d.session = s
	if mode.Pushes == deliver.No { // commits on the branch checked out
		branch, _ := g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
		s.Target = deliver.Target{Branch: branch}
		return p, d, nil
	}
	t, ev, err := j.Target(ctx, g, p.Config)
	if err != nil {
		return nil, nil, err
	}
	d.event = ev
	start, err := deliver.Prepare(ctx, g, t)
	if err != nil {
		return nil, nil, exitcode.New(exitcode.Failure, err)
	}
	s.Target, s.Push, d.start = t, true, start
	j.Log.Info().Str("branch", t.Branch).Str("start", start).Bool("fork", t.Fork).Msg("delivery: working on the branch")
	// The branch's own config and specs.
	if p, err = j.Load(); err != nil {
		return nil, nil, err
	}
	return p, d, nil
}

// finish opens or updates the pull request of ralph-ci's own branch (a
// mode that opens one, off a pull request), starts the CI the mode
// starts, and writes the step outputs branch, head-sha and pull-request.
func (d *delivery) finish(ctx context.Context, j *job.Trusted, summary string) error {
	if d == nil {
		return nil
	}
	s := d.session
	pr, url := "", ""
	if s.Target.PR > 0 {
		pr = strconv.Itoa(s.Target.PR)
	}
	var err error
	if j.Mode.PullRequest == deliver.OpensForOwnBranch && s.Push && s.Target.Own && s.Head() != "" && d.event.DefaultBranch != "" && j.Env.PR.Repository != "" {
		var c *pulls.Client
		if c, err = j.Forge(); err == nil {
			var opened pulls.PR
			opened, err = c.Ensure(ctx, s.Target.Branch, d.event.DefaultBranch, "ralph-ci: the loop's work on "+s.Target.Branch,
				"Work of the ralph-ci loop: each commit is one rotation (see its Ralph-* trailers).\n\n"+summary)
			if err == nil {
				pr, url = strconv.Itoa(opened.Number), opened.URL
				j.Log.Info().Str("url", url).Msg("delivery: pull request open")
			}
		}
	}
	if derr := d.startCI(ctx, j); err == nil {
		err = derr
	}
	if out := j.Env.Actions.Output; out != "" {
		branch := s.Target.Branch
		if s.Target.ForkURL != "" { // the fork's own branch (deliver.ForkPush)
			branch = s.Target.ForkBranch
		}
		ferr := actions.AppendOutputs(out, []actions.Output{{Name: "branch", Value: branch}, {Name: "head-sha", Value: s.Head()},
			{Name: "pull-request", Value: pr}, {Name: "pull-request-url", Value: url}})
		if err == nil && ferr != nil {
			err = fmt.Errorf("delivery: %w", ferr)
		}
	}
	return err
}

// reportsDir is where a rescue bundle goes: the folder of the JSON
// report (uploaded as an artifact by the Action), else .ralph/reports.
func reportsDir(p *project.Project) string {
	if j := p.Config.Reporters.JSON; j != "" {
		return filepath.Join(p.Root, filepath.Dir(filepath.FromSlash(j)))
	}
	return filepath.Join(state.At(p.Root).Path(), "reports")
}

// belowTopLevel refuses delivery from a folder below the top of its git
// work tree: delivery commits (and pushes) the whole repository, so the
// agent's files outside the folder would be committed too.
func belowTopLevel(ctx context.Context, root string) error {
	top, err := (deliver.Git{Dir: root}).Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil // not a repository: delivery says so itself
	}
	if t := igit.Resolved(strings.TrimSpace(top)); t != igit.Resolved(root) {
		return exitcode.Usagef("-C %s is below the top of its git repository %s: delivery commits the whole repository, files outside %s included; run ralph-ci at the repository's root (with ralph.yaml there), or use --deliver none (docs/troubleshooting.md#below-the-top-of-its-git-repository)", root, t, root)
	}
	return nil
}
