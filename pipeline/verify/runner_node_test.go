package verify

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// node --test gets its JUnit reporter right after `node`, where Node
// reads its options (after a file pattern they would be patterns).
func TestNodeTestPreset(t *testing.T) {
	for _, tc := range []struct {
		cmd  schema.Command
		want string // the command ralph-ci runs; "" no preset
	}{
		{schema.Command{Shell: "node --test"}, "node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=/tmp/r/node-test.xml --test"},
		{schema.Command{Shell: "cd lib && node --no-warnings --test test/"}, "cd lib && node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=/tmp/r/node-test.xml --no-warnings --test test/"},
		{schema.Command{Argv: []string{"node", "--test", "test/"}}, `["node" "--test-reporter=spec" "--test-reporter-destination=stdout" "--test-reporter=junit" "--test-reporter-destination=/tmp/r/node-test.xml" "--test" "test/"]`},
		{schema.Command{Shell: "node --test --test-reporter=tap"}, ""},
		{schema.Command{Shell: "node server.js --test"}, ""},
		{schema.Command{Shell: "node build.js"}, ""},
	} {
		p, ok := FindPreset(tc.cmd, t.TempDir(), "/tmp/r", nil)
		got := ""
		if ok {
			got = p.Command.String()
			if p.Runner != "node --test" || p.Report != "/tmp/r/node-test.xml" {
				t.Errorf("%s: preset %+v", tc.cmd, p)
			}
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
	}
	if strings.Contains(nodeTest.Report[0], "|") {
		t.Error("a pipe in the docs' cell")
	}
}
