package deliver

// modeCommit makes each rotation that changed files one commit by
// ralph-ci on the branch checked out, and pushes nothing.
var modeCommit = Mode{
	Name:        "commit",
	Does:        "a commit per rotation that changed files, on the branch checked out, never pushed",
	Where:       CurrentBranch,
	Commits:     Yes,
	Pushes:      No,
	PullRequest: NoPullRequest,
	State:       StateInWorkTree,
	Shards:      NoShards,
	Gate:        GateOwnStatus,
	CI:          NoCI,
	Permissions: []Permission{{"contents", "read", "the checkout"}},
}
