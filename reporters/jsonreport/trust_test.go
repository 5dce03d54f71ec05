package jsonreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The Go check never trusts what #Report refuses: each variant of a valid
// report is trusted only if the schema accepts it too, and the report as
// Encode writes it is trusted (so `report merge` skips CUE for it).
func TestTrustedAgreesWithTheSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, reportstest.Report()); err != nil {
		t.Fatal(err)
	}
	valid := buf.String()
	if _, ok := trusted([]byte(valid)); !ok {
		t.Fatal("the report Encode wrote is not trusted")
	}
	variants := map[string]string{
		"reindented":          strings.ReplaceAll(valid, "\n  ", "\n   "),
		"bad outcome":         strings.Replace(valid, `"outcome": "stuck"`, `"outcome": "melted"`, 1),
		"counter 4":           strings.Replace(valid, `"counter": 0,`, `"counter": 4,`, 1),
		"counter -1":          strings.Replace(valid, `"counter": 0,`, `"counter": -1,`, 1),
		"exit 256":            strings.Replace(valid, `"code": `, `"code": 25`, 1),
		"class":               strings.Replace(valid, `"class": "`, `"class": "X`, 1),
		"command":             strings.Replace(valid, `"command": "run"`, `"command": "walk"`, 1),
		"tier":                strings.Replace(valid, `"tier": "`, `"tier": "x`, 1),
		"stage":               strings.Replace(valid, `"stage": "coder"`, `"stage": "painter"`, 1),
		"agent status":        strings.Replace(valid, `"agent_status": "`, `"agent_status": "x`, 1),
		"status":              strings.Replace(valid, `"status": "`, `"status": "x`, 1),
		"iteration 0":         strings.Replace(valid, `"iteration": `, `"iteration": 0`, 1),
		"negative cost":       strings.Replace(valid, `"cost_usd": `, `"cost_usd": -`, 1),
		"empty path":          strings.Replace(valid, `"path": "`, `"path": "", "x": "`, 1),
		"empty tool":          strings.Replace(valid, `"name": "ralph-ci"`, `"name": ""`, 1),
		"null files":          strings.Replace(valid, `"changed_files": [`, `"changed_files": null, "y": [`, 1),
		"missing title":       strings.Replace(valid, `"title": `, `"_title": `, 1),
		"unknown field":       strings.Replace(valid, `"command": "run"`, `"command": "run", "colour": "red"`, 1),
		"classification":      strings.Replace(valid, `"classification": "`, `"classification": "x`, 1),
		"attempt 0":           strings.Replace(valid, `"attempt": `, `"attempt": 0`, 1),
		"checkpoint status":   strings.Replace(valid, `"status": "skipped"`, `"status": "maybe"`, 1),
		"empty layer name":    strings.Replace(valid, `"name": "signal"`, `"name": ""`, 1),
		"two documents":       valid + valid,
		"totals negative":     strings.Replace(valid, `"rotations": `, `"rotations": -`, 1),
		"negative prompt":     strings.Replace(valid, `"prompt_bytes": `, `"prompt_bytes": -`, 1),
		"negative tokens":     strings.Replace(valid, `"output_tokens": `, `"output_tokens": -`, 1),
		"version as a string": strings.Replace(valid, `"version": 1`, `"version": "1"`, 1),
	}
	for name, src := range variants {
		if src == valid {
			t.Errorf("%s: the variant did not change the report; fix the test", name)
			continue
		}
		_, ok := trusted([]byte(src))
		if ok && schema.ValidateJSON("#Report", "report.json", []byte(src)) != nil {
			t.Errorf("%s: trusted, but #Report refuses it", name)
		}
	}
}
