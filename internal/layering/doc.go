// Package layering pins the package graph of ralph-ci: its test fails when
// a package imports one above it. The order, top to bottom (a package may
// import its own layer and the ones below it, never one above):
//
//	cmd/ralph-ci                      wiring: flags, environment, exit codes
//	pipeline/engine                   the loop: orchestration and I/O
//	pipeline/layers                   the verification layers as pure rules
//	reporters, reporters/*            outputs; reporters/prchannel, the PR checkpoint channel
//	pipeline/gate                     checkpoint sync, merge gate, who may approve
//	pipeline/state, pipeline/project  state.json and the loaded project
//	pipeline/tiers, verify, plan, scheduler   rules over plain values
//	leaves                            agent, changes, counter, discovery, prompt,
//	                                  exitcode, schema, internal/*
//
// A second rule: no package but internal/git (the git doorway) starts
// git; test helpers that build fixtures are listed with their reason
// (gitdoor_test.go).
//
// A new package gets its place in the table of layering_test.go; until it
// has one the test names it.
package layering
