package run

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/sudoroot"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/publish"
)

// end finishes a run: the delivery and the matrix's last pushes, the
// matrix of specs on stdout, the reports (written even for an interrupted
// run) and the exit code, which exitcode.RunEnd decides from what each
// step returned.
func (r *ran) end(ctx context.Context, oc outcome) error {
	code := r.finish(ctx, oc)
	r.progress.update(ctx, oc.Rotations, oc.CostUSD, oc.Specs, &oc.State, exitcode.Of(code).Class())
	r.endGate(ctx, exitcode.Of(code), oc)
	return code
}

// finish is the end's first part: the deliveries, the matrix, the reports
// and the exit code.
func (r *ran) finish(ctx context.Context, oc outcome) error {
	j, p, dl, m, sig, o, out, err := r.s, r.p, r.dl, r.m, r.sig, r.o, oc.Outcome, oc.err
	ctx = context.WithoutCancel(ctx)
	derr := dl.finish(ctx, j, out.Message)
	// Interrupted, the integrated state may not have been pushed:
	// the shards' states stay for the next integration.
	pushed := err == nil && derr == nil && out.Code != exitcode.Interrupted
	if merr := m.Finish(ctx, dl.git(), pushed); merr != nil && derr == nil {
		derr = merr
	}
	if derr != nil {
		j.Log.Error().Err(derr).Msg("delivery: the pull request or the outputs failed")
	}
	engine.PrintRows(j.Stdout, engine.Rows(out.Specs, out.State))
	e := exitcode.RunEnd{Engine: out.Code, EngineErr: err, Delivery: derr, Signal: sig.Code()}
	code := e.Code()
	e.Reports = writeReports(ctx, j.Session, p, out.Report, code, o.JUnit, o.JSON)
	switch final := e.Code(); {
	case err != nil:
		return err
	case final != code:
		return exitcode.New(final, e.Reports)
	}
	ev := j.Log.Info()
	if code != exitcode.OK {
		ev = j.Log.Warn()
	}
	ev.Int("rotations", out.Rotations).Str("exit", code.Class()).Msg(out.Message)
	if code != exitcode.OK {
		return exitcode.Printed(code, fmt.Errorf("%s", out.Message))
	}
	return nil
}

// engineOptions are the engine's options of one run: the agents' output
// echoed in folded groups on GitHub Actions, a progress line on a
// terminal (never on a runner, whatever it says: ::group:: blocks only).
func engineOptions(j *job.Session, p *project.Project, o Options) engine.Options {
	eo := engine.Options{Project: p, MaxRotations: o.MaxRotations, Log: j.Log, Version: j.Version}
	if bd, err := j.StateBinder(); err == nil && bd != nil {
		eo.SpendProof = bd // the day's ledger proven by ralph-ci's own statuses
	}
	if j.Env.Actions.Actions {
		eo.Echo = actionsEcho(j.Stdout)
	} else {
		eo.Progress = o.Progress
	}
	return eo
}

// writeReports writes the run's report, with the exit code the process
// ends with, to the configured files (the flags win) and GitHub Actions'
// places. A failure is logged and returned.
func writeReports(ctx context.Context, j *job.Session, p *project.Project, r *report.Report, code exitcode.Code, junitPath, jsonPath string) error {
	if r == nil {
		return nil
	}
	r.Exit.Code, r.Exit.Class = int(code), code.Class()
	targets := publish.Targets{Root: p.Root, JUnit: cmp.Or(junitPath, p.Config.Reporters.JUnit), JSON: cmp.Or(jsonPath, p.Config.Reporters.JSON), GitHub: true}
	giveBack := sudoroot.ForInvoker(inRoot(p.Root, targets.JUnit), inRoot(p.Root, targets.JSON))
	defer func() {
		if err := giveBack(); err != nil {
			j.Log.Warn().Err(err).Msg("could not give a report back to the user who ran ralph-ci through sudo")
		}
	}()
	if err := publish.Write(ctx, r, targets, j.Env.Actions, j.Stdout); err != nil {
		j.Log.Error().Err(err).Msg("writing the reports failed")
		return err
	}
	return nil
}

// inRoot is path resolved against the root ("" stays "").
func inRoot(root, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
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
