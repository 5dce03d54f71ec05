package agent

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// The fuzz targets check two properties: reading never panics, and the
// Report does not depend on how the output was cut into chunks. FuzzStatus
// and FuzzPromise also compare with a simple reference on the whole text.

func FuzzStatus(f *testing.F) {
	f.Add([]byte("a\nRALPH_STATUS: DONE\nb\n"), uint64(1))
	f.Add([]byte("```\nRALPH_STATUS: DONE\n```\n<promise>X</promise>\n> TASK_COMPLETE"), uint64(5))
	f.Add([]byte("TASK_COMPLETE\r\n**RALPH_STATUS:** ROTATE"), uint64(2))
	f.Add([]byte("RALPH_STATUS: CONTINUE\n\x1b[1mRALPH_STATUS: STUCK\x1b[0m"), uint64(3))
	f.Add([]byte(strings.Repeat("x", maxStatusLine-18)+"RALPH_STATUS: DONE\n"), uint64(4))
	// Whole lines of a chunk: fences among them, the last line that
	// counts before blank, colored and promise lines, a long last line.
	f.Add([]byte("```\n```\nRALPH_STATUS: DONE\n<promise>`a`</promise>\n \n"), uint64(5))
	f.Add([]byte("x\n~~~\nx\nRALPH_STATUS: DONE\n\x1b[0m\n\r\n<promise>x</promise>\n\u00a0\n"), uint64(8))
	f.Add([]byte("x\nRALPH_STATUS: STUCK\r\n"+strings.Repeat(" ", maxStatusLine+1)+"\n\n"), uint64(11))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		got := scan(t, "text", data)
		if chunked := scanChunks(t, "text", data, seed); !reflect.DeepEqual(chunked, got) {
			t.Fatalf("chunked:\n%+v\nwhole:\n%+v", chunked, got)
		}
		// The reference: the status of the last non-empty line that is
		// not a lone promise tag, none inside a fence or past the bound.
		want := status.None
		var task, fenced bool
		for _, line := range strings.Split(string(data), "\n") {
			plain := stripANSI(line)
			switch {
			case len(line) > maxStatusLine:
				want, task = status.None, false
			case strings.TrimSpace(plain) == "" || !fenced && isPromiseLine(plain):
			case isFence(plain):
				fenced, want, task = !fenced, status.None, false
			default:
				want, task = status.None, false
				if st, tc, ok := ParseStatusLine(plain); ok && !fenced {
					want, task = st, tc
				}
			}
		}
		if got.Status != want || got.TaskComplete != task {
			t.Fatalf("status %q %v, reference %q %v", got.Status, got.TaskComplete, want, task)
		}
	})
}

// promiseRE is the reference, on an ASCII-lowered copy of the text (the
// scanner folds ASCII only; (?i) would also fold 'ſ' and the Kelvin sign).
var promiseRE = regexp.MustCompile(`(?s)<promise>(.+?)</promise>`)

func FuzzPromise(f *testing.F) {
	f.Add([]byte("x<promise> a\nb </promise><promise>c</promise>"), uint64(1))
	f.Add([]byte("<PROMISE></promise></Promise>"), uint64(2))
	f.Add([]byte("<promise><</promise"), uint64(3))
	f.Add([]byte("<<promise>>x</</promise>"), uint64(4))
	f.Add([]byte("<promise>"+strings.Repeat("\t", 10)+strings.Repeat("y", MaxPromiseBytes+10)+"</promise>"), uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		got := scan(t, "text", data)
		if chunked := scanChunks(t, "text", data, seed); !reflect.DeepEqual(chunked, got) {
			t.Fatalf("chunked:\n%+v\nwhole:\n%+v", chunked, got)
		}
		low := append([]byte(nil), data...)
		for i, c := range low {
			low[i] = lower(c)
		}
		loc := promiseRE.FindSubmatchIndex(low)
		if loc == nil {
			if got.PromiseFound {
				t.Fatalf("promise %q found, reference has none", got.Promise)
			}
			return
		}
		text := bytes.TrimLeft(data[loc[2]:loc[3]], " \t\n\r\v\f")
		text = text[:min(len(text), MaxPromiseBytes)]
		if want := strings.TrimSpace(string(text)); !got.PromiseFound || got.Promise != want {
			t.Fatalf("promise %q %v, reference %q", got.Promise, got.PromiseFound, want)
		}
	})
}

func FuzzFormats(f *testing.F) {
	names := FormatNames()
	for i, name := range names {
		for _, file := range []string{"claude.json", "claude_stream.jsonl", "claude_verbose.json", "claude_max_turns.jsonl",
			"codex.jsonl", "codex_usage_limit.jsonl", "gemini.json", "gemini_quota.json", "gemini_stream.jsonl"} {
			if strings.HasPrefix(file, name) || name == "text" {
				f.Add(fixture(f, file), uint64(len(file)), uint8(i))
			}
		}
	}
	f.Add([]byte("{\"type\":\"result\",\"result\":\"<promise>x\"}\n{\"a\":\"\n[{\"type\":\"result\"}]"), uint64(7), uint8(0))
	f.Add([]byte(`{"type":"result","result":"a \\\"}\" b\\\\\nRALPH_STATUS: DONE"}`+"\n"), uint64(9), uint8(0))
	f.Add([]byte("{\n  \"response\": \"RALPH_STATUS: DONE\",\n  \"error\": {\"message\": \"Quota exceeded. try again in 2s\"}\n}\n"), uint64(8), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, which uint8) {
		format := names[int(which)%len(names)]
		got := scan(t, format, data, "requires manual", "cannot be automated")
		chunked := scanChunks(t, format, data, seed, "requires manual", "cannot be automated")
		if !reflect.DeepEqual(chunked, got) {
			t.Fatalf("%s: chunked:\n%+v\nwhole:\n%+v", format, chunked, got)
		}
		if got.OutputBytes != int64(len(data)) || len(got.Tail) > TailBytes || len(got.Promise) > MaxPromiseBytes ||
			len(got.RateLimitMessage) > maxMessage || len(got.Usage.ErrorMessage) > maxMessage {
			t.Fatalf("%s: bounds exceeded: %+v", format, got)
		}
	})
}
