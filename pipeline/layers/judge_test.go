package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// judgeTest is one rotation's facts and what Judge must make of them.
type judgeTest struct {
	name     string
	facts    func(f *Facts)
	need     Need
	accepted bool
	status   status.Status
	layers   string // names(v.Layers)
	reason   string // a part of the reason ("" none)
	check    func(t *testing.T, v Verdict)
}

// claimed are the facts of an honest claim on a stage verified by
// external: DONE, the promise, a guard that holds, the method passed.
func claimed(f *Facts) {
	f.Stage = coder("external")
	f.Status = status.Done
	f.Output = agent.Report{Status: status.Done, PromiseFound: true, Promise: "CODER_DONE", Tail: "All done.\n<promise>CODER_DONE</promise>\nRALPH_STATUS: DONE\n"}
	f.Rules = Rules{Admissions: phrases}
	f.Baseline = map[string]string{"check.sh": "aa"}
	f.Now = map[string]string{"check.sh": "aa"}
	f.Method = &verify.Result{Passed: true, Reason: "exit 0"}
}

func (tc judgeTest) run(t *testing.T) {
	t.Helper()
	var f Facts
	tc.facts(&f)
	v := Judge(f)
	if v.Need != tc.need || v.Accepted != tc.accepted || v.Status != tc.status {
		t.Errorf("need %d accepted %v status %q; want need %d accepted %v status %q (reason %q)", v.Need, v.Accepted, v.Status, tc.need, tc.accepted, tc.status, v.Reason)
	}
	if got := names(v.Layers); got != tc.layers {
		t.Errorf("layers %q, want %q", got, tc.layers)
	}
	if !strings.Contains(v.Reason, tc.reason) || (tc.reason == "") != (v.Reason == "") {
		t.Errorf("reason %q, want %q", v.Reason, tc.reason)
	}
	if tc.check != nil {
		tc.check(t, v)
	}
}

// Judge runs the layers in the order of spec/verification-layers.md, the
// first that fails rejects the claim and the later ones are not asked,
// and a fact that costs a process is asked for only when every layer
// before it passed.
func TestJudge(t *testing.T) {
	const claimOK = "contradiction:pass signal:pass promise:pass verifier_guard:pass"
	with := func(edits ...func(f *Facts)) func(f *Facts) {
		return func(f *Facts) {
			claimed(f)
			for _, e := range edits {
				e(f)
			}
		}
	}
	for _, tc := range []judgeTest{
		{name: "no claim: no layer runs, nothing is asked", facts: with(func(f *Facts) {
			f.Status, f.Output.Status, f.Output.PromiseFound, f.Method = status.Continue, status.Continue, false, nil
		}), status: status.Continue},
		{name: "a git state left behind rejects the rotation unjudged", facts: with(func(f *Facts) {
			f.GitLeft, f.Method = "a merge is in progress", nil
		}), status: status.Rejected, layers: "contradiction:pass signal:pass promise:pass git_state:fail", reason: "a merge is in progress"},
		{name: "an honest claim passes every layer", facts: with(), accepted: true, status: status.Done,
			layers: claimOK + " external:pass"},
		{name: "string_match: the promise layer stands for the method, none is asked", facts: with(func(f *Facts) {
			f.Stage = coder(verify.StringMatch)
			f.Method = nil
		}), accepted: true, status: status.Done, layers: "contradiction:pass signal:pass string_match:pass verifier_guard:pass"},
		{name: "the method is asked for once the cheap layers passed", facts: with(func(f *Facts) { f.Method = nil }),
			need: NeedMethod, status: status.Done, layers: claimOK},
		{name: "a contradiction rejects before the guard and the method", facts: with(func(f *Facts) {
			f.Output.Tail = "This requires manual testing.\nRALPH_STATUS: DONE\n"
			f.Now, f.Method = map[string]string{"check.sh": "bb"}, nil
		}), status: status.Rejected, layers: "contradiction:fail", reason: ContradictionLog,
			check: func(t *testing.T, v Verdict) {
				if len(v.Notes) != 1 || v.Notes[0].Level != NoteWarn || v.Notes[0].Msg != ContradictionLog {
					t.Errorf("notes %+v", v.Notes)
				}
			}},
		{name: "a changed verifier rejects before the method, which is not asked", facts: with(func(f *Facts) {
			f.Now, f.Method = map[string]string{"check.sh": "bb"}, nil
		}), status: status.Rejected, layers: "contradiction:pass signal:pass promise:pass verifier_guard:fail", reason: "check.sh",
			check: func(t *testing.T, v Verdict) {
				if len(v.Notes) != 1 || strings.Join(v.Notes[0].Files, ",") != "check.sh" {
					t.Errorf("notes %+v", v.Notes)
				}
			}},
		{name: "a new test file that stops the others", facts: with(func(f *Facts) {
			f.Stops = map[string]string{"conftest.py": "exits"}
		}), status: status.Rejected, layers: "contradiction:pass signal:pass promise:pass verifier_guard:pass verifier_guard:fail", reason: "conftest.py (exits)"},
		{name: "markers: the diff is asked for before the method", facts: with(func(f *Facts) {
			f.Markers, f.CanDiff, f.Method = []string{"TODO"}, true, nil
		}), need: NeedAdded, status: status.Done, layers: claimOK},
		{name: "markers without the stage's start tree: no diff, no layer", facts: with(func(f *Facts) {
			f.Markers = []string{"TODO"}
		}), accepted: true, status: status.Done, layers: claimOK + " external:pass"},
		{name: "a marker the loop added rejects before the method", facts: with(func(f *Facts) {
			f.Markers, f.CanDiff, f.Added, f.Method = []string{"TODO"}, true, Added{"a.go": {"// TODO: the rest"}}, nil
		}), status: status.Rejected, layers: claimOK + " unfinished:fail", reason: "a.go: TODO"},
		{name: "a failed method rejects", facts: with(func(f *Facts) { f.Method = &verify.Result{Reason: "exit 1"} }),
			status: status.Rejected, layers: claimOK + " external:fail", reason: "exit 1"},
		{name: "a test of the inventory that did not run rejects after the method", facts: with(func(f *Facts) {
			f.Inventory = []string{"TestA", "TestB"}
			f.Method.Tests = verify.TestRun{Found: true, Passed: []string{"TestA"}}
		}), status: status.Rejected, layers: claimOK + " external:pass tests:fail", reason: "TestB (missing)"},
		{name: "the tests that passed are kept for the inventory", facts: with(func(f *Facts) {
			f.Inventory = []string{"TestA"}
			f.Method.Tests = verify.TestRun{Found: true, Passed: []string{"TestA", "TestNew"}}
		}), accepted: true, status: status.Done, layers: claimOK + " external:pass tests:pass",
			check: func(t *testing.T, v Verdict) {
				if strings.Join(v.Tests, ",") != "TestA,TestNew" {
					t.Errorf("tests %q", v.Tests)
				}
			}},
		{name: "the semantic judge is asked for once the method passed", facts: with(func(f *Facts) {
			f.Semantic.Judge = "claude-haiku-4-5, agent coder"
		}), need: NeedSemantic, status: status.Done, layers: claimOK + " external:pass"},
		{name: "no semantic judge before the method", facts: with(func(f *Facts) {
			f.Semantic.Judge, f.Method = "claude-haiku-4-5, agent coder", nil
		}), need: NeedMethod, status: status.Done, layers: claimOK},
		{name: "the semantic judge verifies", facts: with(judged("VERIFIED")),
			accepted: true, status: status.Done, layers: claimOK + " external:pass semantic_judge:pass"},
		{name: "the semantic judge's NOT_VERIFIED rejects", facts: with(judged("The message says the rest is left.\nNOT_VERIFIED: the agent admits, in Italian, that the tests are still missing")),
			status: status.Rejected, layers: claimOK + " external:pass semantic_judge:fail", reason: "answered NOT_VERIFIED: the agent admits, in Italian"},
		{name: "a judge with no usable answer: the claim stands on the other layers, with a warning", facts: with(judged("I think it is fine.")),
			accepted: true, status: status.Done, layers: claimOK + " external:pass semantic_judge:pass",
			check: func(t *testing.T, v Verdict) {
				if len(v.Notes) != 1 || v.Notes[0].Level != NoteWarn || !strings.Contains(v.Notes[0].Msg, verify.ModelError) {
					t.Errorf("notes %+v", v.Notes)
				}
			}},
		{name: "a judge that failed to run: the same", facts: with(func(f *Facts) {
			f.Semantic.Judge, f.Semantic.Failed = "gpt-5-mini, agent coder", "exited 1"
		}), accepted: true, status: status.Done, layers: claimOK + " external:pass semantic_judge:pass"},
		{name: "the reviewer is asked for last, with its iteration", facts: with(reviewing(nil)),
			need: NeedReview, status: status.Done, layers: claimOK + " external:pass",
			check: func(t *testing.T, v Verdict) {
				if v.ReviewAt != 1 {
					t.Errorf("review iteration %d, want 1", v.ReviewAt)
				}
			}},
		{name: "REVIEW_PASS accepts and is logged to the progress file", facts: with(reviewing(ptr("Looks right.\nREVIEW_PASS"))),
			accepted: true, status: status.Done, layers: claimOK + " external:pass review:pass",
			check: func(t *testing.T, v Verdict) {
				if v.Loop != LoopClear || len(v.Progress) != 1 || !strings.Contains(v.Progress[0], "REVIEW_PASS") {
					t.Errorf("loop %d progress %q", v.Loop, v.Progress)
				}
			}},
		{name: "REVIEW_FAIL asks for a fix rotation", facts: with(reviewing(ptr("a.go:3 is wrong\nREVIEW_FAIL"))),
			status: status.Rejected, layers: claimOK + " external:pass review:fail", reason: "REVIEW_FAIL (review iteration 1 of 3)",
			check: func(t *testing.T, v Verdict) {
				if v.Loop != LoopFix || v.FixIteration != 2 {
					t.Errorf("loop %d fix iteration %d", v.Loop, v.FixIteration)
				}
			}},
		{name: "a review not due is skipped, said in the progress file", facts: with(reviewing(nil), func(f *Facts) {
			f.Review.Task, f.Review.PrevStage, f.Review.Stages = 1, "coder", 1
		}), accepted: true, status: status.Done, layers: claimOK + " external:pass review:pass",
			check: func(t *testing.T, v Verdict) {
				if len(v.Progress) != 1 || !strings.Contains(v.Progress[0], "Skipping artifact review (next at task 5)") {
					t.Errorf("progress %q", v.Progress)
				}
			}},
		{name: "without a reviewer no review is announced", facts: with(reviewing(nil), func(f *Facts) {
			f.Review.Task, f.Review.PrevStage, f.Review.Stages, f.Review.Reviewer = 1, "coder", 1, ""
		}), accepted: true, status: status.Done, layers: claimOK + " external:pass review:pass",
			check: func(t *testing.T, v Verdict) {
				if len(v.Progress) != 0 {
					t.Errorf("progress %q: a review that never comes announced", v.Progress)
				}
			}},
		{name: "a failed review fix is retried once", facts: with(reviewing(nil), func(f *Facts) {
			f.Status, f.Output.Status, f.Output.PromiseFound, f.Review.Pending = status.Stuck, status.Stuck, false, 2
		}), status: status.Stuck, reason: "the review fix failed, retrying once (review iteration 2)",
			check: func(t *testing.T, v Verdict) {
				if v.Loop != LoopFixFailed {
					t.Errorf("loop %d", v.Loop)
				}
			}},
		{name: "a fix rotation that says CONTINUE is no failed fix", facts: with(reviewing(nil), func(f *Facts) {
			f.Status, f.Output.Status, f.Output.PromiseFound, f.Review.Pending = status.Continue, status.Continue, false, 2
		}), status: status.Continue},
		{name: "a review fix that failed twice gives up and accepts", facts: with(reviewing(nil), func(f *Facts) {
			f.Status, f.Output.Status, f.Output.PromiseFound = status.None, status.None, false
			f.Review.Pending, f.Review.FixFailures = 2, 1
		}), accepted: true, status: status.None, layers: "review:pass",
			check: func(t *testing.T, v Verdict) {
				if len(v.Progress) != 1 || !strings.Contains(v.Progress[0], "The review fix failed twice") || v.Notes[0].Msg != FixGaveUp {
					t.Errorf("progress %q notes %+v", v.Progress, v.Notes)
				}
			}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// reviewing turns the artifact review on, due, with a reviewer whose
// answer is out (nil: not run yet).
func reviewing(out *string) func(f *Facts) {
	return func(f *Facts) {
		f.Review = ReviewFacts{Enabled: true, Every: 5, MaxIterations: 3, Reviewer: "reviewer", Stages: 2, ProgressFile: ".ralph/progress/a.md", Output: out}
	}
}

func ptr(s string) *string { return &s }

// judged are the facts of a semantic judge that answered answer.
func judged(answer string) func(f *Facts) {
	return func(f *Facts) {
		f.Semantic.Judge, f.Semantic.Answer = "claude-haiku-4-5, agent coder", &answer
	}
}
