package schema

import (
	"os"
	"strings"
	"testing"

	"cuelang.org/go/cue"
)

// TestREADMEReferencesEveryConfigKey keeps the configuration reference
// reference in step with config.cue: every key of #Config must be named.
func TestREADMEReferencesEveryConfigKey(t *testing.T) {
	readme, err := os.ReadFile("../docs/reference/config.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compiled()
	if err != nil {
		t.Fatal(err)
	}
	keys := append(configKeys(s.definition("#Config"), ""), configKeys(s.definition("#Agent"), "agents.NAME.")...)
	if len(keys) < 30 {
		t.Fatalf("found only %d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		if !strings.Contains(string(readme), "`"+k+"`") {
			t.Errorf("docs/reference/config.md does not document config key `%s`", k)
		}
	}
}

// configKeys lists the dotted keys of v's fields; agent and stage names
// are written NAME and STAGE.
func configKeys(v cue.Value, prefix string) []string {
	var keys []string
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		key := prefix + name
		child := it.Value()
		switch key {
		case "agents": // a map of #Agent, listed by the caller
			continue
		case "stages.STAGE.verification_config": // the methods table documents its options
			keys = append(keys, key)
			continue
		case "stages":
			keys = append(keys, configKeys(child.LookupPath(cue.ParsePath("coder")), "stages.STAGE.")...)
			continue
		}
		if sub := configKeys(child, key+"."); child.IncompleteKind() == cue.StructKind && len(sub) > 0 {
			keys = append(keys, sub...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}
