package deliver

// modeNone leaves the work in the work tree, as on a laptop: the CLI's
// default.
var modeNone = Mode{
	Name:        "none",
	Does:        "the work stays in the work tree",
	Where:       WorkTree,
	Commits:     No,
	Pushes:      No,
	PullRequest: NoPullRequest,
	State:       StateInWorkTree,
	Shards:      NoShards,
	Gate:        GateOwnStatus,
	CI:          NoCI,
	Permissions: []Permission{{"contents", "read", "the checkout"}},
}
