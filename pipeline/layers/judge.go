package layers

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// Facts are what the engine found about one rotation: everything [Judge]
// reads. A new layer adds the field it reads here and its rule to [order].
type Facts struct {
	Stage    plan.Stage
	Status   status.Status // the rotation's final status ([FinalStatus])
	Output   agent.Report  // what was read from the agent's output
	TimedOut bool          // the agent ran out of time
	Rules    Rules         // the contradiction phrases and the echoes
	// GitLeft is the git state the rotation left that ralph-ci does not
	// commit through (a merge in progress, say; "" none): whatever was
	// claimed, the rotation is rejected with it, unjudged.
	GitLeft string

	// The verifier guard: the guarded items' hashes when the stage
	// started (none: nothing is guarded) and after the rotation, and the
	// test files the rotation added that can stop the others ([StopsTests]).
	Baseline, Now map[string]string
	Stops         map[string]string

	// Unfinished work: the markers of the config, whether the tree the
	// stage started from is known (without it there is no diff), and the
	// lines the loop added since (nil until gathered: [NeedAdded]).
	Markers []string
	CanDiff bool
	Added   Added
	// Where are the added lines' numbers and the new files; Tamper what
	// the tampering layer reads besides ([TamperFacts]).
	Where  Where
	Tamper TamperFacts

	// Method is the result of the stage's verification method (nil until
	// it ran: [NeedMethod]); Inventory the tests the stage started with
	// (and those that passed since), which its test report must run.
	Method    *verify.Result
	Inventory []string

	// Semantic is the semantic judge's ([SemanticFacts]).
	Semantic SemanticFacts

	Review ReviewFacts
}

// ReviewFacts are what the artifact review reads.
type ReviewFacts struct {
	Enabled       bool
	Every         int    // layers.review.every
	MaxIterations int    // layers.review.max_iterations
	Reviewer      string // the reviewer agent ("": none configured)
	Task          int    // the task's index (accepted claims so far)
	PrevStage     string // the stage of the previous task
	Stages        int    // the spec's stages
	Pending       int    // the review iteration of a pending fix (0: none)
	FixFailures   int    // fix rotations of the pending loop that failed
	ProgressFile  string // where Path B's suggestions go, as the user sees it
	// Output is the reviewer's final text (nil until it ran: [NeedReview]).
	Output *string
}

// Need names a fact [Judge] cannot do without: the engine gathers it and
// judges again. Each costs a process (git, the stage's verification, the
// reviewer agent), so it is asked for only when every layer before it
// passed.
type Need int

// The facts Judge may ask for.
const (
	NeedNothing  Need = iota // the verdict is final
	NeedAdded                // Facts.Added
	NeedMethod               // Facts.Method
	NeedReview               // Facts.Review.Output, for iteration Verdict.ReviewAt
	NeedSemantic             // Facts.Semantic.Answer (or Failed)
)

// NoteLevel is how loud a [Note] is.
type NoteLevel int

// The levels of a note.
const (
	NoteDebug NoteLevel = iota
	NoteInfo
	NoteWarn
)

// Note is a line the verdict asks the engine to log about the spec.
type Note struct {
	Level NoteLevel
	Msg   string
	Files []string
}

// layer is one step of [order]: it records its finding on v and tells
// whether the claim still holds; a fact it lacks it names in v.Need.
type layer func(v *Verdict, f *Facts) bool

// order is the order in which the layers judge a claim, the one of
// spec/verification-layers.md (see the package comment): the first that
// fails rejects the claim.
var order = []layer{
	claimLayers, // 1-3: contradiction, signal, promise
	guardLayer,  // 4: verifier guard, and new tests that stop the others
	unfinishedLayer,
	tamperLayer,   // patches, shadowing modules, runner detection, in the language
	methodLayer,   // the stage's verification method
	testsLayer,    // its test report against the stage's inventory
	semanticLayer, // the semantic judge, for a model agent
	reviewLayer,   // the artifact review
}

// Judge judges one rotation from its facts: a git state left behind
// rejects it unjudged (Facts.GitLeft); else every layer in [order] until
// one fails, then the acceptance, or the judgement of a failed review fix
// ([Verdict.FixFailed]). When a layer needs a fact f lacks, the verdict
// says which in Need and is not final: the engine gathers it and calls
// Judge again.
func Judge(f Facts) Verdict {
	if f.GitLeft != "" { // whatever it claimed: nothing is committed through that state
		v, _ := Claim(f.Status, f.Output, f.Stage, f.Rules)
		v.Reject("git_state", f.GitLeft)
		return v
	}
	var v Verdict
	ok := true
	for _, l := range order {
		if ok = l(&v, &f); !ok {
			break
		}
	}
	switch {
	case v.Need != NeedNothing:
	case ok:
		v.Accepted = true
	case f.Review.Pending > 0 && !v.reviewed && v.FixFailed(f.TimedOut, f.Review.Pending, f.Review.FixFailures):
		v.note(NoteWarn, FixGaveUp, nil)
		v.Progress = append(v.Progress, fmt.Sprintf("\n%s (task %d).\n", strings.ToUpper(FixGaveUp[:1])+FixGaveUp[1:], f.Review.Task))
	}
	return v
}

func claimLayers(v *Verdict, f *Facts) bool {
	var ok bool
	*v, ok = Claim(f.Status, f.Output, f.Stage, f.Rules)
	if strings.HasPrefix(v.Reason, ContradictionLog) {
		v.note(NoteWarn, ContradictionLog, nil)
	}
	return ok
}

func guardLayer(v *Verdict, f *Facts) bool {
	if !v.Guard(f.Stage.Name, f.Baseline, f.Now) {
		v.note(NoteWarn, "verifier guard: claim rejected, the verification files were changed", Tampered(f.Baseline, f.Now))
		return false
	}
	if !v.NewTests(f.Stops) {
		v.note(NoteWarn, "verifier guard: claim rejected, a new test file can stop the existing tests", nil)
		return false
	}
	return true
}

func unfinishedLayer(v *Verdict, f *Facts) bool {
	if len(f.Markers) == 0 || !f.CanDiff {
		return true
	}
	if f.Added == nil {
		v.Need = NeedAdded
		return false
	}
	if len(f.Added) == 0 {
		return true
	}
	return v.Unfinished(Unfinished(f.Added, f.Markers))
}

func methodLayer(v *Verdict, f *Facts) bool {
	method := f.Stage.Criteria.VerificationMethod
	if method == verify.StringMatch {
		return true // the promise layer stood for it
	}
	if f.Method == nil {
		v.Need = NeedMethod
		return false
	}
	return v.Method(method, *f.Method)
}

func testsLayer(v *Verdict, f *Facts) bool {
	if f.Stage.Criteria.VerificationMethod == verify.StringMatch || f.Method == nil {
		return true
	}
	run := f.Method.Tests
	ok := v.TestRun(f.Inventory, f.Stage.Criteria.RetireTests, run)
	if ok && run.Found {
		v.Tests = PassedSince(f.Inventory, run)
	}
	return ok
}

func reviewLayer(v *Verdict, f *Facts) bool {
	r := f.Review
	if !r.Enabled {
		return true
	}
	if r.Reviewer == "" { // no review ever comes: "next at task N" would promise one
		v.note(NoteDebug, "artifact review skipped: no reviewer agent (set layers.review.agent or define agents.reviewer)", nil)
		v.Pass("review", "skipped: no reviewer agent configured")
		return true
	}
	if r.Pending == 0 && !ReviewDue(r.Task, r.PrevStage, f.Stage.Name, r.Stages, r.Every) {
		msg := SkipMessage(r.Task, r.Stages, r.Every)
		v.note(NoteInfo, msg, nil)
		v.Progress = append(v.Progress, msg+"\n")
		v.Pass("review", msg)
		return true
	}
	it := ReviewIteration(r.Pending, r.MaxIterations)
	if r.Output == nil {
		v.Need, v.ReviewAt = NeedReview, it
		return false
	}
	v.reviewed = true
	d := DecideReview(*r.Output, it, r.MaxIterations)
	v.Progress = append(v.Progress, d.Entry(r.Task))
	if w := d.Warning(); w != "" {
		v.note(NoteWarn, w, nil)
		v.Progress = append(v.Progress, "\n"+w+"\n")
	}
	if s := d.Suggestions(r.Task); s != "" {
		v.Progress = append(v.Progress, s)
	}
	return v.Review(d, r.ProgressFile)
}

func (v *Verdict) note(level NoteLevel, msg string, files []string) {
	v.Notes = append(v.Notes, Note{Level: level, Msg: msg, Files: files})
}
