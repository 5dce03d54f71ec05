package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/github/pulls"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitauth"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
	"github.com/rs/zerolog"
)

// delivery is a run's delivery: the session the engine calls, and what
// the step outputs report afterwards.
type delivery struct {
	session *deliver.Session
	env     prchannel.Env
	event   deliver.Event
	// ciWorkflows are started on the pushed branch after the last push
	// (delivery.ci_workflows), unless pushToken pushed (its push starts
	// them).
	ciWorkflows []string
	pushToken   bool
}

// loadDelivering loads the project with load and its delivery mode
// (--deliver flag, else the config's).
func loadDelivering(opts *globalOptions, load func(*globalOptions) (*project.Project, error), flag string) (*project.Project, string, error) {
	p, err := load(opts)
	if err != nil {
		return nil, "", err
	}
	mode, err := deliveryMode(flag, p.Config)
	return p, mode, err
}

// deliveryMode is --deliver, else the config's delivery.mode.
func deliveryMode(flag string, cfg *schema.Config) (string, error) {
	switch flag {
	case "":
		return cfg.Delivery.Mode, nil
	case schema.DeliverNone, schema.DeliverCommit, schema.DeliverPR:
		return flag, nil
	}
	return "", &usageError{fmt.Errorf("--deliver %q: want none, commit or pr", flag)}
}

// setupDelivery puts the checkout on the branch the loop works on and
// reloads the project from it (pr mode: the pull request's head, not the
// merge ref actions/checkout leaves). It returns nil for mode none.
func setupDelivery(ctx context.Context, opts *globalOptions, p *project.Project, mode string) (*project.Project, *delivery, error) {
	if mode == "" || mode == schema.DeliverNone {
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
	if _, err := g.Run(ctx, "remote", "get-url", "origin"); err != nil && mode == schema.DeliverPR {
		return nil, nil, &usageError{fmt.Errorf("--deliver pr pushes the work to the remote origin, and the repository at %s has none: add it (git remote add origin URL), or use --deliver commit (commits only) or none (docs/troubleshooting.md#no-remote-origin)", root)}
	}
	id := deliver.DefaultIdentity
	if a := p.Config.Delivery.Author; a != nil {
		id = deliver.Identity{Name: a.Name, Email: a.Email}
	}
	d := &delivery{env: opts.env.pr, ciWorkflows: p.Config.Delivery.CIWorkflows, pushToken: opts.env.pushToken != ""}
	bd, err := stateBinder(opts)
	if err != nil {
		return nil, nil, err
	}
	s := &deliver.Session{Git: g, StateDir: state.At(root).Path(), Identity: id, Reports: reports,
		Binder: bd, Warn: func(msg string) { opts.log.Warn().Msg(msg) }}
	d.session = s
	if mode == schema.DeliverCommit {
		branch, _ := g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
		s.Target = deliver.Target{Branch: branch}
		return p, d, nil
	}
	t, err := d.target(ctx, opts, g, p.Config)
	if err != nil {
		return nil, nil, err
	}
	start, err := deliver.Prepare(ctx, g, t)
	if err != nil {
		return nil, nil, exitcode.New(exitcode.Failure, err)
	}
	s.Target, s.Push = t, true
	opts.log.Info().Str("branch", t.Branch).Str("start", start).Bool("fork", t.Fork).Msg("delivery: working on the branch")
	_ = p.Loader.Close() // the checkout moved: its specs are watched anew
	// The branch's own config and specs.
	if p, err = loadRunProject(opts); err != nil {
		return nil, nil, err
	}
	return p, d, nil
}

// target is the branch the loop works on in pr mode, from the event.
func (d *delivery) target(ctx context.Context, opts *globalOptions, g deliver.Git, cfg *schema.Config) (deliver.Target, error) {
	ev, err := d.readEvent(ctx)
	if err != nil {
		return deliver.Target{}, exitcode.New(exitcode.Failure, err)
	}
	d.event = ev
	refName := opts.env.refName
	if refName == "" {
		refName, _ = g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	}
	t, err := deliver.TargetOf(ev, cfg.Delivery.Branch, refName)
	if err != nil {
		return t, exitcode.New(exitcode.Usage, err)
	}
	return forkPush(opts, t, ev)
}

// forkPush delivers a fork's pull request to the fork's own branch when
// its owner allows maintainers and the push-token can (deliver.ForkPush):
// the push token goes to git push of the fork's URL alone
// (igit.UsePushURL). Otherwise a log line says why the work goes to a
// branch of the base repository.
func forkPush(opts *globalOptions, t deliver.Target, ev deliver.Event) (deliver.Target, error) {
	t, why := deliver.ForkPush(t, ev, opts.env.pushToken != "", opts.env.serverURL)
	if why != "" {
		opts.log.Info().Msg("delivery: " + why)
	}
	if t.ForkURL == "" {
		return t, nil
	}
	if err := igit.UsePushURL(t.ForkURL, gitauth.Credential(t.ForkURL, opts.env.pushToken).Header); err != nil {
		return t, exitcode.New(exitcode.Failure, fmt.Errorf("pull request #%d: %w", ev.PR, err))
	}
	opts.log.Info().Str("fork", ev.HeadRepo).Str("branch", t.ForkBranch).Msg("delivery: the fork allows maintainers: the work goes to its branch, pushed with the push-token")
	return t, nil
}

// pulls is the client of the repository's pull requests.
func (d *delivery) pulls() (*pulls.Client, error) {
	r, err := d.env.Repo(zerolog.Nop())
	if err != nil {
		return nil, err
	}
	return pulls.New(r), nil
}

// readEvent reads the event payload; a comment's payload names no head
// branch, the API does.
func (d *delivery) readEvent(ctx context.Context) (deliver.Event, error) {
	if d.env.EventPath == "" {
		return deliver.Event{}, nil
	}
	raw, err := os.ReadFile(d.env.EventPath)
	if err != nil {
		return deliver.Event{}, fmt.Errorf("read the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	ev, err := deliver.ParseEvent(d.env.EventPath, raw)
	if err != nil || ev.PR == 0 || ev.HeadRef != "" {
		return ev, err
	}
	c, err := d.pulls()
	if err != nil {
		return ev, err
	}
	h, err := c.Head(ctx, ev.PR)
	if err != nil {
		return ev, err
	}
	ev.HeadRef, ev.HeadSHA, ev.HeadRepo, ev.BaseRepo = h.Ref, h.SHA, h.HeadRepo, h.BaseRepo
	ev.HeadCloneURL, ev.MaintainerCanModify = h.HeadCloneURL, h.MaintainerCanModify
	if ev.DefaultBranch == "" {
		ev.DefaultBranch = h.DefaultBranch
	}
	return ev, nil
}

// finish opens or updates the pull request of ralph-ci's own branch (pr
// mode off a pull request) and writes the step outputs branch, head-sha
// and pull-request.
func (d *delivery) finish(ctx context.Context, opts *globalOptions, summary string) error {
	if d == nil {
		return nil
	}
	s := d.session
	pr, url := "", ""
	if s.Target.PR > 0 {
		pr = strconv.Itoa(s.Target.PR)
	}
	var err error
	if s.Push && s.Target.Own && s.Head() != "" && d.event.DefaultBranch != "" && d.env.Repository != "" {
		var c *pulls.Client
		if c, err = d.pulls(); err == nil {
			var opened pulls.PR
			opened, err = c.Ensure(ctx, s.Target.Branch, d.event.DefaultBranch, "ralph-ci: the loop's work on "+s.Target.Branch,
				"Work of the ralph-ci loop: each commit is one rotation (see its Ralph-* trailers).\n\n"+summary)
			if err == nil {
				pr, url = strconv.Itoa(opened.Number), opened.URL
				opts.log.Info().Str("url", url).Msg("delivery: pull request open")
			}
		}
	}
	if derr := d.startCI(ctx, opts); err == nil {
		err = derr
	}
	if out := opts.env.actions.Output; out != "" {
		branch := s.Target.Branch
		if s.Target.ForkURL != "" { // the fork's own branch (deliver.ForkPush)
			branch = s.Target.ForkBranch
		}
		ferr := appendOutputs(out, []actions.Output{{Name: "branch", Value: branch}, {Name: "head-sha", Value: s.Head()},
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

// stateBinder binds the loop's state to the commits it describes with
// ralph-ci's own commit statuses, on GitHub (GITHUB_REPOSITORY set); nil
// elsewhere: on a laptop the state refs are trusted as they are.
func stateBinder(opts *globalOptions) (deliver.Binder, error) {
	e := opts.env.pr
	if e.Repository == "" {
		return nil, nil
	}
	r, err := e.Repo(zerolog.Nop())
	if err != nil {
		return nil, err
	}
	return pulls.New(r).WithLogin(e.Login), nil
}

// checkDelivered reads what the merge gate's rule for delivery pr
// (gate.Delivered) judges: the pull request's head, and the loop's state
// saved in git for its head branch. It returns the head and why the rule
// does not hold (nothing when it does, or off delivery pr).
func checkDelivered(ctx context.Context, opts *globalOptions, p *project.Project, mode string) (string, []string, error) {
	if mode != schema.DeliverPR {
		return "", nil, nil
	}
	d := &delivery{env: opts.env.pr}
	ev, err := d.readEvent(ctx)
	if err != nil || ev.PR == 0 {
		return "", nil, err
	}
	c, err := d.pulls()
	if err != nil {
		return "", nil, err
	}
	head, err := c.Head(ctx, ev.PR)
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "ralph-ci-state-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	defer useGitCredential(ctx, opts, p.Root)()
	r, err := deliver.ReadState(ctx, deliver.Git{Dir: p.Root}, c.WithLogin(d.env.Login), head.Ref, tmp)
	if err != nil {
		return "", nil, err
	}
	st, err := state.Load(state.Dir(tmp))
	if err != nil {
		return "", nil, err
	}
	why := gate.Delivered(p.Specs, &st, r.Found(), r.Described, head.Ref, head.SHA)
	if r.State != "" && !r.Bound {
		why = []string{deliver.Unbound(r.Ref, r.Binding)}
	}
	if len(why) == 0 {
		opts.log.Info().Str("head", head.SHA).Msg("every spec is verified 3/3 at the pull request's head")
	}
	return head.SHA, why, nil
}
