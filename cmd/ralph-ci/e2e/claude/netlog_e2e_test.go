//go:build linux

package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// netLogLine is a line of ralph-ci's JSON log that names a host the
// network refused.
type netLogLine struct {
	Level, Message, Host, How string
	Named                     int
}

// netLog runs ralph-ci once with a text agent that runs script (the dump
// folder is $OUT), network.allow allowing allow, and returns what the
// agent wrote to $OUT/net.txt and the log's network lines.
func netLog(t *testing.T, script string, allow ...string) (net string, lines []netLogLine, stderr string) {
	t.Helper()
	bin := e2e.RalphBinary(t)
	out := e2e.RecordDir(t) // the agent writes there (RecordsGrant)
	agent := "cat > /dev/null\nOUT=" + out + "\n" + script + `
echo '<promise>IMPLEMENTATION_COMPLETE</promise>'
echo 'RALPH_STATUS: DONE'
`
	allowed, _ := json.Marshal(append([]string{}, allow...))
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [bash, agent.sh], format: text, timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"network: {allow: " + string(allowed) + "}\n" + e2e.RecordsGrant,
		"agent.sh": agent, "PROMPT.md": "# Net\n\nTry the network.\n", ".gitignore": ".ralph/\n",
	})
	_, stdout, errb := e2e.RunRalphArgs(t, bin, dir, e2e.AgentEnv(t.TempDir()), 60*time.Second, "--log-format", "json", "run", "--max-rotations", "1")
	b, err := os.ReadFile(filepath.Join(out, "net.txt"))
	if err != nil {
		t.Fatalf("the agent left no net.txt: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, errb)
	}
	for l := range strings.Lines(string(errb)) {
		var nl netLogLine
		if json.Unmarshal([]byte(l), &nl) == nil && strings.HasPrefix(nl.Message, "network: ") && nl.Level == "warn" {
			lines = append(lines, nl)
		}
	}
	return string(b), lines, string(errb)
}

// A process in the box that ignores the proxy fails fast, and the log
// names what it tried, with how to allow it: a host by name (curl
// --noproxy '*', a lookup of its own) and an address:port (a raw TCP
// connect). A CONNECT the proxy refuses is named once however often it
// is tried; a host network.allow lists is still reached through the
// proxy.
func TestLogNamesWhatEscapesTheProxy(t *testing.T) {
	requireNetworkBox(t)
	n := newNetTargets(t)
	script := fmt.Sprintf(`ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }
t=${EPOCHREALTIME/./}; curl -s --noproxy '*' -o /dev/null http://blocked.example.test/; echo "byname=$? $(ms $t)" > $OUT/net.txt
t=${EPOCHREALTIME/./}; if (exec 3<>/dev/tcp/203.0.113.7/4444) 2>/dev/null; then r=reached; else r=failed; fi; echo "raw=$r $(ms $t)" >> $OUT/net.txt
for i in 1 2 3; do curl -s -o /dev/null -w 'connect=%%{http_connect}\n' https://refused.example.test/ >> $OUT/net.txt; done
curl -s --noproxy '' -w ' allowed=%%{http_code}\n' http://%s/ >> $OUT/net.txt
`, n.allowedHost)
	got, lines, stderr := netLog(t, script, n.allowedHost)
	var fast []string
	for l := range strings.Lines(got) {
		f := strings.Fields(l)
		if len(f) == 2 && (strings.HasPrefix(f[0], "byname=") || strings.HasPrefix(f[0], "raw=")) {
			fast = append(fast, f[0])
			var ms int
			fmt.Sscan(f[1], &ms)
			if ms > 10000 {
				t.Errorf("%s took %d ms: a try past the proxy must fail at once", f[0], ms)
			}
		}
	}
	// curl's 6: could not resolve the host.
	if want := "byname=6 raw=failed"; strings.Join(fast, " ") != want {
		t.Errorf("the tries past the proxy: %q, want %q\n%s", fast, want, got)
	}
	e2e.Contains(t, "net.txt", got, "connect=403\nconnect=403\nconnect=403\nallowed-body allowed=200\n")
	want := map[string]string{
		"dns blocked.example.test":       "looked up a host itself, not through HTTPS_PROXY",
		"tcp 203.0.113.7:4444":           "connected to an address directly, not through HTTPS_PROXY",
		"proxy refused.example.test:443": "refused a connection to a host network.allow does not list",
	}
	seen := map[string]int{}
	for _, l := range lines {
		key := l.How + " " + l.Host
		seen[key]++
		if w, ok := want[key]; ok && (!strings.Contains(l.Message, w) || !strings.Contains(l.Message, "network.allow")) {
			t.Errorf("%s: %q, want it to say %q and how to allow it (network.allow)", key, l.Message, w)
		}
	}
	for key := range want {
		if seen[key] != 1 {
			t.Errorf("the log names %s %d times, want once\n%s", key, seen[key], stderr)
		}
	}
	if strings.Contains(stderr, n.allowedHost+`","how"`) {
		t.Errorf("the log names the allowed host as refused\n%s", stderr)
	}
}

// A flood of lookups of distinct names, and of CONNECTs to distinct
// hosts, fails like one, and the log names a bounded number of hosts
// and then says, once, that it names no more.
func TestLookupFloodDoesNotGrowTheLog(t *testing.T) {
	requireNetworkBox(t)
	const names = 500
	script := fmt.Sprintf(`getent hosts $(seq -f 'flood%%g.example.test' %[1]d) > /dev/null; echo "lookups=$?" > $OUT/net.txt
curl -s -o /dev/null -w '%%{http_connect}\n' $(seq -f 'https://connect%%g.example.test/' %[1]d) | sort | uniq -c | tr -s ' ' >> $OUT/net.txt
`, names)
	got, lines, stderr := netLog(t, script)
	// getent's 2: a key was not found.
	if want := fmt.Sprintf("lookups=2\n %d 403\n", names); got != want {
		t.Errorf("the flood: %q, want %q", got, want)
	}
	named, noMore := 0, 0
	for _, l := range lines {
		switch {
		case l.Host != "":
			named++
		case strings.Contains(l.Message, "names no more"):
			noMore++
		}
	}
	if named == 0 || named > 50 || noMore != 1 {
		t.Errorf("the log named %d hosts (want 1 to 50) and said it names no more %d times (want once)\n%s", named, noMore, stderr)
	}
}
