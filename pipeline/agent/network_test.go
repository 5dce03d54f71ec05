package agent

import (
	"os/exec"
	"slices"
	"testing"
)

// fakeNetwork records the routes asked for.
type fakeNetwork struct {
	upstream string
	keys     map[string]string
}

func (f *fakeNetwork) Route(upstream string, keys map[string]string) (string, map[string]string, error) {
	f.upstream, f.keys = upstream, keys
	ph := map[string]string{}
	for k := range keys {
		ph[k] = "placeholder-" + k
	}
	return "http://127.0.0.1:9/m/1", ph, nil
}
func (f *fakeNetwork) Environ() []string         { return []string{"HTTPS_PROXY=http://127.0.0.1:9"} }
func (f *fakeNetwork) Start(cmd *exec.Cmd) error { return cmd.Start() }
func (f *fakeNetwork) ConnectOnly() int          { return 0 }

// No process gets a key, a model API's base URL or the job's proxy
// settings; an agent gets its API's base URL at the proxy and a
// placeholder for each key that is set. The upstream and keys come from
// the job unless the agent's configured env names its own base URL: then
// the job's key never goes there.
func TestNetworkEnv(t *testing.T) {
	claude, _ := FormatAPI("claude")
	job := []string{"PATH=/bin", "MY_KEY=sk-declared", "ANTHROPIC_API_KEY=sk-job", "ANTHROPIC_BASE_URL=https://gw.example/anthropic", "OPENAI_API_KEY=sk-oai", "HTTPS_PROXY=http://corp:3128"}
	for _, tc := range []struct {
		name         string
		configured   []string
		api          *ModelAPI
		wantEnv      []string
		wantUpstream string
		wantKeys     map[string]string
	}{
		{"the job's key and base URL", nil, &claude,
			[]string{"PATH=/bin", "ANTHROPIC_BASE_URL=http://127.0.0.1:9/m/1", "ANTHROPIC_API_KEY=placeholder-ANTHROPIC_API_KEY", "HTTPS_PROXY=http://127.0.0.1:9"},
			"https://gw.example/anthropic", map[string]string{"ANTHROPIC_API_KEY": "sk-job"}},
		{"the config's base URL gets only the config's key", []string{"ANTHROPIC_BASE_URL=http://evil.example"}, &claude,
			[]string{"PATH=/bin", "ANTHROPIC_BASE_URL=http://127.0.0.1:9/m/1", "HTTPS_PROXY=http://127.0.0.1:9"},
			"http://evil.example", map[string]string{}},
		{"a verification command", nil, nil,
			[]string{"PATH=/bin", "HTTPS_PROXY=http://127.0.0.1:9"}, "", nil},
		{"a command agent's declared API", []string{"MY_KEY=sk-mine"}, &ModelAPI{Keys: []string{"MY_KEY"}, BaseURL: "MY_URL", Upstream: "https://api.example"},
			[]string{"PATH=/bin", "MY_URL=http://127.0.0.1:9/m/1", "MY_KEY=placeholder-MY_KEY", "HTTPS_PROXY=http://127.0.0.1:9"},
			"https://api.example", map[string]string{"MY_KEY": "sk-mine"}},
		{"another agent's declared key", nil, nil,
			[]string{"PATH=/bin", "HTTPS_PROXY=http://127.0.0.1:9"}, "", nil},
		{"a declared upstream gets no key of the job's", nil, &ModelAPI{Keys: []string{"OPENAI_API_KEY"}, Upstream: "https://evil.example", Declared: true},
			[]string{"PATH=/bin", "HTTPS_PROXY=http://127.0.0.1:9"},
			"https://evil.example", map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &fakeNetwork{}
			env := BuildEnv(job, EnvPolicy{}, tc.configured)
			got, _, err := NetworkEnv(env, tc.configured, job, tc.api, n, "MY_KEY")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.wantEnv) {
				t.Errorf("env = %q\nwant  %q", got, tc.wantEnv)
			}
			if n.upstream != tc.wantUpstream || len(n.keys) != len(tc.wantKeys) {
				t.Errorf("route %s %v, want %s %v", n.upstream, n.keys, tc.wantUpstream, tc.wantKeys)
			}
			for k, v := range tc.wantKeys {
				if n.keys[k] != v {
					t.Errorf("route key %s = %q, want %q", k, n.keys[k], v)
				}
			}
		})
	}
}

// Codex reads its base URL from its configuration, not a variable: the
// codex command gets it as a -c setting; another command does not.
func TestWithSetting(t *testing.T) {
	codex, _ := FormatAPI("codex")
	got := WithSetting([]string{"codex", "exec", "--json", "-"}, "codex", &codex, "http://127.0.0.1:9/m/1")
	want := []string{"codex", "-c", `openai_base_url="http://127.0.0.1:9/m/1"`, "exec", "--json", "-"}
	if !slices.Equal(got, want) {
		t.Errorf("argv = %q, want %q", got, want)
	}
	for _, argv := range [][]string{{"sh", "-c", "codex exec -"}, {"/usr/bin/codex", "exec"}} {
		got := WithSetting(argv, "codex", &codex, "http://127.0.0.1:9/m/1")
		if argv[0] == "sh" && !slices.Equal(got, argv) {
			t.Errorf("a wrapped codex got the setting: %q", got)
		}
		if argv[0] != "sh" && len(got) != len(argv)+2 {
			t.Errorf("codex by its path did not get the setting: %q", got)
		}
	}
}
