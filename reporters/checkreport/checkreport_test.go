package checkreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestEnd: a config that did not load ends with its problems and no
// output, anything else with what check printed; the exit is err's code
// and class, with its message; a report with nothing in its lists writes
// them empty, never null.
func TestEnd(t *testing.T) {
	problems := schema.Problems{{File: "ralph.yaml", Line: 2, Col: 3, Path: "agents", Msg: "field not allowed"}}
	r := New()
	r.End(exitcode.Printed(exitcode.Usage, problems), "ignored")
	if len(r.Problems) != 1 || r.Problems[0] != (Problem{File: "ralph.yaml", Line: 2, Col: 3, Field: "agents", Message: "field not allowed"}) || r.Output != "" {
		t.Errorf("problems %+v, output %q", r.Problems, r.Output)
	}
	if r.Exit.Code != int(exitcode.Usage) || r.Exit.Class != exitcode.Usage.Class() || r.Exit.Message == "" {
		t.Errorf("exit %+v, want usage with a message", r.Exit)
	}

	r = New()
	r.End(exitcode.New(exitcode.AwaitHuman, errors.New("awaiting approval: specs/a.spec.md ")), "checkpoint: specs/a.spec.md pending\n")
	if r.Output != "checkpoint: specs/a.spec.md pending\n" || len(r.Problems) != 0 || r.Exit.Code != int(exitcode.AwaitHuman) || r.Exit.Message != "awaiting approval: specs/a.spec.md" {
		t.Errorf("gate's end: %+v", r)
	}

	var out bytes.Buffer
	r = New()
	r.End(nil, "")
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"specs", "problems", "warnings"} {
		if l, ok := doc[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %v, want []", k, doc[k])
		}
	}
	if e := doc["exit"].(map[string]any); e["code"] != float64(0) || e["class"] != "done" {
		t.Errorf("exit of a check that passed = %v, want 0 done", e)
	}
}
