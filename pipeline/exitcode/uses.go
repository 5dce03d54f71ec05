package exitcode

// Use is what one exit code means for one command.
type Use struct {
	Command string // run, check, answer; "" for every command
	Code    Code
	When    string
}

// Commands are the commands whose exit codes Uses describes one by one;
// the others (status, reset, plan, report merge, version) exit 0, 1, 2 or
// an interrupt's code only.
var Commands = []string{"run", "check", "answer"}

// Uses is the one table of what the exit codes mean, command by command.
// The README's exit-code table and docs/reference/exit-codes.md are
// generated from it (go generate ./cmd/ralph-ci); scripts and CI
// conditions depend on it, so a code never changes meaning.
var Uses = []Use{
	{"run", OK, "every spec verified 3/3 and every verify-tier checkpoint approved"},
	{"check", OK, "all valid, and every verify-tier spec approved for the head commit (or skipped after an escalation); on a laptop also while no checkpoint was ever presented"},
	{"answer", OK, "the answer was recorded: an approval, or a choice after an escalation"},
	{"", OK, "done"},
	{"run", Failure, "an unexpected failure: I/O, git, an agent that cannot start or cannot work at all (its CLI refused to: root with permissions skipped, a refused API key, Gemini CLI's exits 41, 42, 44, 52, 55); with delivery, a push that failed (a rebase conflict, a refused push, a workflow change): the work is saved on a rescue branch or in a bundle"},
	{"check", Failure, "an unexpected failure; on a schedule, a pull request whose checkpoints could not be read (the others are still read); on merge_group, a pull request of the group without ralph-ci success at the head the group holds"},
	{"", Failure, "an unexpected failure: I/O, git"},
	{"", Usage, "a bad config, spec front matter or command line"},
	{"answer", Usage, "also an answer that changed nothing: an auto-tier spec, no checkpoint waiting, a checkpoint presented for another commit than HEAD, or not 1, 2 or 3 after an escalation"},
	{"run", Limits, "a limit stopped the run: max rotations, wall time, or a spend cap of the run, the pull request or the day (the next run continues), or a spec out of iterations or verification passes (taken out of the loop until ralph-ci reset)"},
	{"check", Limits, "with --deliver pr: the pull request's head is not verified 3/3 yet; on a schedule: the GitHub API's rate limit stopped the walk over the pull requests"},
	{"run", Stuck, "a spec kept returning STUCK, or its claims were rejected for the same reason loop.same_rejections times in a row, and it was taken out of the loop"},
	{"run", Exhausted, "every agent of a pool is rate limited or out of quota beyond budgets.max_wait"},
	{"run", AwaitHuman, "a verify-tier checkpoint waits for an answer"},
	{"check", AwaitHuman, "a checkpoint waits for an answer, or a verify-tier spec is not verified yet"},
	{"run", Rejected, "a checkpoint was rejected; the spec went back to work"},
	{"check", Rejected, "a checkpoint was rejected: the spec is back at work (the next run continues)"},
	{"answer", Rejected, "the answer rejected the checkpoint: the spec goes back to work"},
	{"run", Escalated, "a checkpoint was rejected 3 times and waits for a decision (1, 2 or 3)"},
	{"check", Escalated, "a checkpoint was rejected 3 times and waits for a decision (1, 2 or 3)"},
	{"answer", Escalated, "the answer was the third rejection: the checkpoint waits for a decision (1, 2 or 3)"},
	{"", Interrupted, "stopped by SIGINT (130) or SIGTERM (143); state is saved"},
}
