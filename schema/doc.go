// Package schema holds the rules of every file ralph-ci reads or writes,
// as CUE definitions embedded in the binary (config.cue, frontmatter.cue,
// state.cue, report.cue), and the Go types they decode into.
//
// LoadConfig checks ralph.yaml, ralph.json or ralph.cue against #Config,
// fills in the defaults and decodes it into Config; LoadFrontMatter does
// the same for a spec's front matter (#FrontMatter, into FrontMatter).
// Every problem comes back as Problems, each naming file, line, column and
// field, so that `ralph-ci check` can print them and annotate the lines.
// ValidateJSON checks a document ralph-ci wrote itself (state.json, a
// report) against its definition; the tests use it to pin the formats.
//
// The package is a leaf of the module: it imports no other package of
// ralph-ci, and the pipeline and the reporters build on its types.
package schema
