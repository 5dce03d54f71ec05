// Package docgen renders the generated pages of docs/reference from the
// sources of truth: the CUE schemas (config keys and front-matter fields,
// with the doc comments of the .cue files), action.yml (the Action's inputs
// and outputs), the command tree (commands and flags) and exitcode's table
// (exit codes per command). It only renders text; cmd/ralph-ci's test
// writes the pages (go generate ./cmd/ralph-ci) and fails when one is stale.
package docgen
