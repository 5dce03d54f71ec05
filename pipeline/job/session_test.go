package job

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github/jobenv"
)

// TestSessionReadsTheEventOnce: the session finds the pull request in
// pull_request events, not in a push or a comment on a plain issue, nor
// off GitHub; a merge queue's group names its pull request in its
// branch. It read each payload once, at Open.
func TestSessionReadsTheEventOnce(t *testing.T) {
	events := filepath.Join("..", "..", "github", "prchannel", "testdata", "events")
	open := func(repo, file string) (*Session, *bytes.Buffer) {
		var log bytes.Buffer
		name, _, _ := strings.Cut(file, ".") // the event the example is of
		j := &Session{Log: zerolog.New(&log).Level(zerolog.DebugLevel)}
		j.Env.PR = jobenv.PR{Repository: repo, EventName: name, EventPath: filepath.Join(events, file)}
		return Open(j), &log
	}
	for file, want := range map[string]int{"pull_request.opened.json": 2, "pull_request.synchronize.json": 2, "issue_comment.created.json": 0, "push.json": 0} {
		for _, repo := range []string{"Codertocat/Hello-World", ""} {
			s, log := open(repo, file)
			if repo == "" {
				want = 0 // off GitHub: no pull request's API
			}
			n, ok, err := s.PullRequest()
			if err != nil || n != want || ok != (want != 0) {
				t.Errorf("%s in %q: %d %v %v", file, repo, n, ok, err)
			}
			if _, ok, err := s.MergeGroup(); ok || err != nil {
				t.Errorf("%s: a merge group (%v)", file, err)
			}
			if got := strings.Count(log.String(), "job session: event read"); got != 1 {
				t.Errorf("%s: the event was read %d times, want once:\n%s", file, got, log)
			}
		}
	}
	s, _ := open("octo-org/octo-repo", "merge_group.checks_requested.json")
	mg, ok, err := s.MergeGroup()
	if err != nil || !ok || mg.PR != 104 || mg.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" {
		t.Errorf("merge_group: %+v %v %v", mg, ok, err)
	}
}

// doors are the one place each of these is called: the event's payload
// read (ghevent.Read) and a client of the GitHub port built
// (github.New), both by the job session at the door, and the delivery
// mode chosen (deliver.ModeNamed), by its second step (Session.Trust).
var doors = map[string]string{
	"github.com/ralph-ci/ralph-ci/internal/ghevent.Read":      "pipeline/job/session.go",
	"github.com/ralph-ci/ralph-ci/github.New":                 "pipeline/job/session.go",
	"github.com/ralph-ci/ralph-ci/pipeline/deliver.ModeNamed": "pipeline/job/trusted.go",
}

// TestOneDoor fails when code outside the job session reads the event,
// builds a GitHub client or chooses the delivery mode: a command takes
// them from the session, so that
// a job reads its event once and talks to GitHub through one client
// (cmd/ralph-ci/e2e/pullrequest's TestOneClientOneEventRead counts them in real jobs).
func TestOneDoor(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := map[string]string{} // local name -> import path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = p
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := imports[x.Name] + "." + sel.Sel.Name
			if door, ok := doors[name]; ok && filepath.ToSlash(rel) != door {
				t.Errorf("%s: %s: only the job session (%s) may: take it from the session", fset.Position(sel.Pos()), name, door)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
